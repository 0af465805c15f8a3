/** Placeholder until the report engine lands (issue 3). */
import type { Database } from '../db/database.js';

export interface ReportServiceDeps {
  database: Database;
  clock: () => number;
}

export type ReportService = ReportServiceDeps;

export function createReportService(deps: ReportServiceDeps): ReportService {
  return deps;
}
