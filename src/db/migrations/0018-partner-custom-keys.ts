/**
 * A partner's custom fields in `partnerFields` are keyed without underscores, as the
 * specification's sample record writes them (`partnerpartnereddate` for the custom field
 * `partnered_date`; catalog/account-fields.ts `partnerCustomKey`). Matched-account rows
 * written by earlier imports hold `partnerpartnered_date`; the keys are renamed in place,
 * so the columns, filters and sorts of the new catalog find them before the next import
 * (which rebuilds the rows anyway: REPORTS_FORMAT 2). Standard keys hold no underscore:
 * where a renamed custom key meets one, the standard value stays, as an import writes it.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    update rpt_matched_accounts r set partner_fields = (
      select jsonb_object_agg(replace(e.key, '_', ''), e.value order by (strpos(e.key, '_') > 0) desc, e.key)
      from jsonb_each(r.partner_fields) e)
    where exists (select 1 from jsonb_object_keys(r.partner_fields) k where strpos(k, '_') > 0)`.execute(db);
}

/** The underscores are gone from the keys; the next import writes them back. */
export async function down(): Promise<void> {}
