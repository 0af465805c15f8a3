/**
 * Query stage, dashboards: totals and per-partner breakdowns over the filtered rows of a
 * report (contract section 5). Amounts that belong to an account or an opportunity are
 * summed once per account / opportunity, not once per partner row, in the totals and in
 * each partner's figures alike.
 *
 * Amounts are stored as double precision; they are summed as numeric, so 25367.9 is not
 * reported as 25367.900000000005, and the sum does not depend on the order rows are added
 * in. Each value is converted through its text (`x::text::numeric`): the shortest digits
 * that read back as the stored double, the value the rows and the CSV show. `x::numeric`
 * keeps only 15 significant digits (12345678901234.56 became 12345678901234.6), and it
 * took twice as long (2,000,000 values: 0.94-1.14 s against 0.44-0.45 s).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Plan } from './plan.js';
import { filteredRelation, scopeConditions, textOrder } from './query.js';

type Sql = RawBuilder<unknown>;

/** The breakdowns' partner name `b.name` in the text order of `sort=` (ties on the count). */
const byName = textOrder(sql`b.name`);

/**
 * The sum of an amount column over a group (`where` its aggregate filter), exact, as a
 * double: each value through its text (see above), and NULL when the sum is beyond the
 * double range. Amounts each within it (up to about 1.8e308) can add up past it, and such
 * a figure is no JSON number; casting it would be a database error, which would fail the
 * import's stored dashboards and answer a valid request with an error. The bound is
 * exact: 2^1024 - 2^970, half a unit past the largest double, from where a value rounds to
 * infinity (below it, it rounds to a double, the largest at most). PostgreSQL computes the
 * repeated sum once. `value` and `where` are this file's own SQL, never request values.
 */
const DOUBLE_OVERFLOW = (2n ** 1024n - 2n ** 970n).toString();
function amountSum(value: string, where?: string): Sql {
  const sum = sql.raw(`coalesce(sum(${value}::text::numeric)${where ? ` filter (where ${where})` : ''}, 0)`);
  return sql`(case when abs(${sum}) < ${sql.raw(DOUBLE_OVERFLOW)} then (${sum})::float8 end)`;
}

/**
 * Totals, per-partner rows and (events) per-event-type rows as separate statements, or
 * `combined`: one statement returning one row, `totals` (JSON object) and `by_partner`
 * (JSON array), with the same keys.
 */
export type DashboardQueries = { totals: Sql; byPartner: Sql; byEventType?: Sql } | { combined: Sql };

type Rows = Array<Record<string, unknown>>;

/** The dashboard's figures: its statements run (separate ones side by side), their rows in one shape. */
export async function runDashboard(db: Kysely<any>, q: DashboardQueries): Promise<{ totals: Record<string, unknown>; byPartner: Rows; byEventType: Rows | undefined }> {
  const run = async (query: Sql): Promise<Rows> => (await query.execute(db)).rows as Rows;
  if ('combined' in q) {
    const [one] = (await run(q.combined)) as Array<{ totals?: Record<string, unknown>; by_partner?: Rows }>;
    return { totals: one?.totals ?? {}, byPartner: one?.by_partner ?? [], byEventType: undefined };
  }
  const [totals, byPartner, byEventType] = await Promise.all([run(q.totals), run(q.byPartner), q.byEventType ? run(q.byEventType) : undefined]);
  return { totals: totals[0] ?? {}, byPartner, byEventType };
}

export function dashboardQueries(plan: Plan): DashboardQueries {
  const f = filteredRelation(plan);
  switch (plan.report.id) {
    case 'GLOBAL_VERTICAL_ACCOUNTS': {
      // Reads only columns of the accounts' narrow copy (narrow-copies.ts ACCOUNT_DASHBOARD_EXTRA and the columns before it).
      const facts = filteredRelation(plan, { narrow: true });
      // One pass over the rows for totals and breakdown: grouping sets give one group per
      // account (its rows, whether any row says customer, its amounts once), one per
      // partner, and one per (partner, account) for the breakdown's distinct accounts.
      // The same figures as count(distinct ...) and per-account subqueries, which read the
      // rows four times (a filtered dashboard at 2,000,000 rows: 1.5 s + 0.55 s -> about
      // 0.6 s). Returned as one row of JSON, like the stored dashboard.
      return {
        combined: sql`with g as (
            select case when grouping(m.partner_org_id) = 0 then 'partner' when grouping(m.partner_org_public_id) = 0 then 'pair' else 'account' end as kind,
              m.crm_account_id, m.partner_org_id, m.partner_org_public_id, m.partner_org_name, count(*) as n,
              bool_or(m.is_customer) as customer, max(m.open_pipeline_amount) as p, max(m.account_acv) as v
            from ${facts}
            group by grouping sets ((m.crm_account_id), (m.partner_org_id), (m.partner_org_public_id, m.partner_org_name, m.crm_account_id)))
          select
            (select json_build_object(
                'overlapping_accounts', count(g.crm_account_id) filter (where g.kind = 'account'),
                'overlaps', coalesce(sum(g.n) filter (where g.kind = 'account'), 0)::bigint,
                'partners', count(g.partner_org_id) filter (where g.kind = 'partner'),
                'customers', count(g.crm_account_id) filter (where g.kind = 'account' and g.customer),
                'open_pipeline_amount', ${amountSum('g.p', "g.kind = 'account'")},
                'account_acv', ${amountSum('g.v', "g.kind = 'account'")})
              from g) as totals,
            (select coalesce(json_agg(json_build_object('partner_public_id', b.id, 'partner_name', b.name, 'overlaps', b.overlaps,
                  'overlapping_accounts', b.accounts, 'open_pipeline_amount', b.pipeline) order by b.overlaps desc, ${byName}, b.id), '[]')
              from (select g.partner_org_public_id as id, g.partner_org_name as name, sum(g.n)::bigint as overlaps,
                  count(g.crm_account_id) as accounts, ${amountSum('g.p')} as pipeline
                from g where g.kind = 'pair' group by 1, 2) b) as by_partner`,
      };
    }
    case 'GLOBAL_VERTICAL_OPPORTUNITIES':
      // One pass, as for the accounts above: one group per opportunity (its rows, its amount
      // once, won / closed if any row says so; won counts only when closed too, as
      // `opp_pt_status` says WON only then), per account, per partner, and per
      // (partner, opportunity) for the breakdown. The rows used to be read five times.
      return {
        combined: sql`with g as (
            select case when grouping(m.crm_opportunity_id) = 0 and grouping(m.partner_org_public_id) = 1 then 'opportunity'
                when grouping(m.crm_account_id) = 0 then 'account' when grouping(m.partner_org_id) = 0 then 'partner' else 'pair' end as kind,
              m.crm_opportunity_id, m.crm_account_id, m.partner_org_id, m.partner_org_public_id, m.partner_org_name, count(*) as n,
              max(m.amount) as amount, bool_or(m.is_won and m.is_closed) as won, bool_or(coalesce(m.is_closed, false)) as closed
            from ${f}
            group by grouping sets ((m.crm_opportunity_id), (m.crm_account_id), (m.partner_org_id), (m.partner_org_public_id, m.partner_org_name, m.crm_opportunity_id)))
          select
            (select json_build_object(
                'opportunities', count(g.crm_opportunity_id) filter (where g.kind = 'opportunity'),
                'overlaps', coalesce(sum(g.n) filter (where g.kind = 'opportunity'), 0)::bigint,
                'accounts', count(g.crm_account_id) filter (where g.kind = 'account'),
                'partners', count(g.partner_org_id) filter (where g.kind = 'partner'),
                'amount', ${amountSum('g.amount', "g.kind = 'opportunity'")},
                'won_amount', ${amountSum('g.amount', "g.kind = 'opportunity' and g.won")},
                'open_amount', ${amountSum('g.amount', "g.kind = 'opportunity' and not g.closed")})
              from g) as totals,
            (select coalesce(json_agg(json_build_object('partner_public_id', b.id, 'partner_name', b.name, 'opportunities', b.opportunities,
                  'overlaps', b.overlaps, 'amount', b.amount) order by b.opportunities desc, ${byName}, b.id), '[]')
              from (select g.partner_org_public_id as id, g.partner_org_name as name, count(*) as opportunities, sum(g.n)::bigint as overlaps,
                  ${amountSum('g.amount')} as amount
                from g where g.kind = 'pair' group by 1, 2) b) as by_partner`,
      };
    case 'ATTRIBUTION_EVENTS':
      return {
        totals: sql`select count(*) as events, count(distinct m.crm_account_id) as accounts, count(distinct m.partner_org_id) as partners from ${f}`,
        byPartner: sql`select m.company_partner_public_id as partner_public_id, m.partner_org_name as partner_name, count(*) as events
          from ${f} group by 1, 2 order by events desc, ${textOrder(sql`m.partner_org_name`)}, 1`,
        byEventType: sql`select m.event_type_code as code, max(m.event_type_display_name) as display_name, count(*) as events
          from ${f} group by 1 order by events desc, 1`,
      };
    case 'PIPELINE_ATTRIBUTION_DETAIL': {
      const perOpp = sql`(select m2.opp_crm_opportunity_id, max(m2.opp_amount) as amount, bool_or(m2.opp_pt_status = 'WON') as won from ${filteredRelationAs(plan, 'm2')} group by 1) o`;
      return {
        totals: sql`select count(distinct m.opp_crm_opportunity_id) as new_opportunities, count(*) as events,
            count(distinct m.partner_org_id) as partners, avg(m.number_days_to_new_opp)::double precision as average_days_to_new_opp,
            (select ${amountSum('o.amount')} from ${perOpp}) as pipeline,
            (select ${amountSum('o.amount', 'o.won')} from ${perOpp}) as won_amount
          from ${f}`,
        byPartner: sql`select p.partner_public_id, p.partner_name, count(*) as new_opportunities, sum(p.events) as events, ${amountSum('p.amount')} as pipeline
          from (select m.company_partner_public_id as partner_public_id, m.partner_org_name as partner_name, m.opp_crm_opportunity_id, count(*) as events, max(m.opp_amount) as amount
                from ${f} group by 1, 2, 3) p
          group by 1, 2 order by new_opportunities desc, ${textOrder(sql`p.partner_name`)}, 1`,
      };
    }
    case 'PIPELINE_ATTRIBUTION_SUMMARY': {
      // The counted links of the opportunities that pass the filters.
      const links = sql`(select l.* from rpt_attribution_links l
          where ${sql.join(scopeConditions(plan.orgId, plan.scope, 'l'), sql` and `)}
            and l.opp_rid in (select m2.rid from ${filteredRelationAs(plan, 'm2')})) k`;
      return {
        totals: sql`select count(*) as new_opportunities, ${amountSum('m.opp_amount')} as pipeline,
            ${amountSum('m.opp_amount', "m.opp_pt_status = 'WON'")} as won_amount,
            coalesce(sum(m.total_attribution_events), 0) as events,
            (select avg(k.number_days_to_new_opp)::double precision from ${links}) as average_days_to_new_opp,
            (select count(distinct k.partner_org_id) from ${links}) as partners
          from ${f}`,
        byPartner: sql`select p.partner_public_id, p.partner_name, count(*) as new_opportunities, sum(p.events) as events, ${amountSum('p.amount')} as pipeline
          from (select k.company_partner_public_id as partner_public_id, k.partner_org_name as partner_name, k.opp_rid, count(*) as events, max(k.opp_amount) as amount
                from ${links} group by 1, 2, 3) p
          group by 1, 2 order by new_opportunities desc, ${textOrder(sql`p.partner_name`)}, 1`,
      };
    }
    default:
      throw new Error(`no dashboard for ${plan.report.id}`);
  }
}

function filteredRelationAs(plan: Plan, alias: string): Sql {
  const f = filteredRelation(plan);
  return sql`(select * from ${f}) ${sql.raw(alias)}`;
}
