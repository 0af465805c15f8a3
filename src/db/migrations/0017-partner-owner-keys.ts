/**
 * The partner account owner's `partnerFields` keys follow the specification's sample
 * record (catalog/account-fields.ts): `partnerownername` -> `partnerowneridname`, and the
 * email, title, phone and division likewise. Matched-account rows written by earlier
 * imports hold the old keys in `partner_fields`; they are renamed in place (value, and
 * presence with a JSON null, kept), so columns, filters and sorts find them at once.
 * A custom field of the partner named like a new key wins over the owner's, as it does
 * when an import writes the object.
 */
import { sql, type Kysely } from 'kysely';

const RENAMED = ['name', 'email', 'title', 'phone', 'division'].map((k) => [`partnerowner${k}`, `partnerownerid${k}`] as const);

export async function up(db: Kysely<unknown>): Promise<void> {
  const pairs = sql.join(RENAMED.map(([from, to]) => sql`(${from}, ${to})`));
  const olds = sql.join(RENAMED.map(([from]) => sql`${from}`));
  await sql`
    update rpt_matched_accounts r set partner_fields = (
      select jsonb_object_agg(coalesce(m.new_key, e.key), e.value order by (m.new_key is null))
      from jsonb_each(r.partner_fields) e
      left join (values ${pairs}) m(old_key, new_key) on m.old_key = e.key)
    where r.partner_fields ?| array[${olds}]::text[]`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const pairs = sql.join(RENAMED.map(([from, to]) => sql`(${to}, ${from})`));
  const news = sql.join(RENAMED.map(([, to]) => sql`${to}`));
  await sql`
    update rpt_matched_accounts r set partner_fields = (
      select jsonb_object_agg(coalesce(m.new_key, e.key), e.value order by (m.new_key is null))
      from jsonb_each(r.partner_fields) e
      left join (values ${pairs}) m(old_key, new_key) on m.old_key = e.key)
    where r.partner_fields ?| array[${news}]::text[]`.execute(db);
}
