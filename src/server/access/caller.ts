import type { ServiceState } from '../../reports/data-version.js';

/** Who is calling: resolved by the access layer before any report code runs. */
export interface Caller {
  orgId: number;
  orgPublicId: string;
  userId: number | null;
  email: string | null;
  role: 'ADMIN' | 'MEMBER';
  /** API key id, or null for a bearer token. */
  keyId: string | null;
  /** The identity the rate limit counts against (one key, or one sub+org). */
  rateKey: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
    /**
     * The versions the access stage read for this request (after it arrived); report
     * routes tag their answers with this data version instead of reading it again.
     */
    serviceState?: ServiceState;
  }
}
