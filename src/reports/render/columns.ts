/** Render stage: catalog columns -> column metadata objects (spec 2.11, contract section 5). */
import { apiType, type Column } from '../catalog/types.js';

export interface ColumnMetadata {
  title: string;
  key: string;
  type: string;
  active: boolean;
  isPartnerData: boolean;
  isHidden: boolean;
  columnIndex: number;
  source: string | null;
  columnClassification: string | null;
  isFromOtherFields: boolean;
  isJson: boolean;
  values: Record<string, unknown>;
  crmAccountBaseUri: string | null;
  crmOpportunityBaseUri: string | null;
  otherFieldsPrefix: string | null;
  otherFieldsJsonPrefix: string | null;
  prefix: string | null;
  color: string | null;
}

/**
 * Standard columns: source `standard`, classification STANDARD. Custom: source `custom`,
 * CUSTOM_CRM_FIELD / CUSTOM_CRM_OBJECT. Partner shared: isPartnerData, source and
 * classification null. In default display order (catalog, then custom, then partner).
 */
export function columnMetadata(columns: readonly Column[]): ColumnMetadata[] {
  return columns.map((c, i) => {
    // Partner data: the matched partner's shared fields, and the partner-organization
    // columns of the report-analytics reports. Spec 2.11: such columns always have
    // source and columnClassification null.
    const partner = c.source === 'partner' || c.group === 'partner';
    return {
      title: c.title,
      key: c.key,
      type: apiType(c.type),
      active: true,
      isPartnerData: partner,
      isHidden: c.hidden ?? false,
      columnIndex: i,
      source: partner ? null : c.source,
      columnClassification: partner ? null : c.source === 'custom' ? c.classification ?? 'CUSTOM_CRM_FIELD' : 'STANDARD',
      isFromOtherFields: false,
      isJson: false,
      values: {},
      crmAccountBaseUri: null,
      crmOpportunityBaseUri: null,
      otherFieldsPrefix: null,
      otherFieldsJsonPrefix: null,
      prefix: partner ? 'partner' : null,
      color: null,
    };
  });
}
