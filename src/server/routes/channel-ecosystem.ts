import type { FastifyInstance } from 'fastify';
import type { ReportService } from '../../reports/service.js';

export function registerChannelEcosystemRoutes(_app: FastifyInstance, _deps: { reports: ReportService }): void {}
