/**
 * `partner-reports import <bundle-dir>`: all or nothing. A progress bar on a terminal
 * (stderr), then one count line per entity; on any problem, every `file:line: field:
 * problem` line and a non-zero exit, with the database unchanged. Files of the folder
 * that are no bundle file are listed once as ignored.
 */
import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { runOperation, type Operation } from './context.js';
import { CliFailure } from './failure.js';
import { formatProblem, importBundle, type ImportOptions } from '../ingest/import-bundle.js';

/**
 * The import itself. Run by a server holding the embedded database (context.ts
 * runOperation), it reads the bundle from the same folder (the path is made absolute
 * first) and draws no progress bar: its output comes back line by line.
 */
export const importOperation: Operation<{ dir: string; progress: boolean }> = async ({ database, out, err, interactive }, { dir, progress }) => {
  const started = Date.now();
  const showBar = progress && interactive && process.stderr.isTTY;
  const bar = showBar ? new cliProgress.SingleBar({ stream: process.stderr, format: 'importing {file} [{bar}] {percentage}% | {phase}', hideCursor: true }, cliProgress.Presets.shades_classic) : undefined;
  // Seconds per phase, for the closing line: where an import's time goes, without a profiler.
  const phases = new Map<string, number>();
  const hooks: ImportOptions = {
    onStep: (step, ms) => {
      const phase = step.split(' ')[0]!;
      phases.set(phase, (phases.get(phase) ?? 0) + ms / 1000);
    },
  };
  if (bar) {
    bar.start(100, 0, { file: '', phase: 'validating' });
    hooks.onProgress = (p) => bar.update(p.totalBytes ? Math.floor((p.bytes / p.totalBytes) * 100) : 0, { file: p.file, phase: `validating (${p.lines} lines)` });
    hooks.onPhase = (phase) => bar.update({ phase });
  }
  const result = await importBundle(database, dir, hooks).finally(() => bar?.stop());
  // Not a problem (a README beside the files is fine), but said once, so a file meant as data is noticed.
  if (result.ignored.length) out(`ignored (not bundle files): ${result.ignored.join(', ')}\n`);
  if (!result.ok) {
    for (const p of result.problems) err(`${formatProblem(p)}\n`);
    throw new CliFailure(`import failed: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}; nothing was changed`);
  }
  const rows = result.counts.reduce((n, c) => n + c.inserted + c.updated + c.unchanged, 0);
  for (const c of result.counts) out(`${c.entity}: ${c.inserted} inserted, ${c.updated} updated, ${c.unchanged} unchanged\n`);
  const seconds = (Date.now() - started) / 1000;
  out(`imported ${rows} records in ${seconds.toFixed(1)} s (${Math.round(rows / Math.max(seconds, 0.001))} records/s); data version ${result.dataVersion}${result.rebuilt ? '' : ' (nothing changed: the report tables were kept)'}\n`);
  out(`time: ${[...phases].map(([phase, s]) => `${phase} ${s.toFixed(1)} s`).join(', ')}\n`);
  // After the summary, on stderr: the import succeeded (exit 0), but a table left unvacuumed or unanalyzed reads slower.
  for (const w of result.warnings) err(`warning: ${w}\n`);
};

export async function importCommand(dir: string, options: { progress: boolean }): Promise<void> {
  await runOperation('import', { dir: resolve(dir), progress: options.progress }, importOperation);
}
