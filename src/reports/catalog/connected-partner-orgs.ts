/** PARTNER_ORG_CONNECTED_PARTNER_ORGS (spec 2.10): the caller's CONNECTED partner organizations. */
import { column } from './column.js';
import type { ReportDefinition } from './types.js';

export const PARTNER_ORG_CONNECTED_PARTNER_ORGS: ReportDefinition = {
  id: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS',
  title: 'Connected Partner Organizations',
  table: 'rpt_connected_partners',
  shape: 'table',
  context: 'none',
  customEntities: [],
  defaultOrder: 'partnerName, then companyPartnerPublicId',
  partnerColumn: 'partner_org_id',
  aliases: { partnerOrgName: 'partnerName' },
  columns: [
    column('partnerName', 'name', { column: 'partner_name' }),
    column('partnerWebsite', 'string', { column: 'partner_website' }),
    column('companyPartnerPublicId', 'string', { column: 'company_partner_public_id', title: 'Company Partner Public ID' }),
    column('partnerType', 'string', { column: 'partner_type' }),
    column('recommended', 'boolean'),
    column('firstConnectedDate', 'date', { column: 'first_connected_date' }),
    column('mostRecentConnectedDate', 'date', { column: 'most_recent_connected_date' }),
    column('lastPartnerSheetUploadDate', 'date', { column: 'last_partner_sheet_upload_date' }),
    column('activeConnections', 'number', { column: 'active_connections' }),
    column('spreadsheetsShared', 'number', { column: 'spreadsheets_shared' }),
    column('partnerOwner', 'name', { column: 'partner_owner' }),
    column('partnerOwnerEmail', 'email', { column: 'partner_owner_email' }),
    column('partnerOwnerPhone', 'string', { column: 'partner_owner_phone' }),
  ],
};
