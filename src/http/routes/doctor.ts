import type { Kernel } from '../../kernel';
import { DoctorReportSchema, runDoctor } from '../../core/doctor/model';
import { controllerSections } from '../../core/doctor/sections';
import { defineRoute, type AnyRoute } from '../route';

export function doctorRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/doctor',
      auth: 'admin',
      permission: 'svc.dashboard.admin',
      tag: 'config',
      summary: 'Every health check (environment, configuration, storage, database, services, cluster, modules); always 200: read status or failCount',
      response: { 200: DoctorReportSchema },
      handler: () => runDoctor(controllerSections(kernel)),
    }),
  ];
}
