import type { DataReport } from '../../functions/lib/data-report.js';
import { dataReportInService } from '../../functions/lib/runtime/data-report.js';
import type { Services } from '../../functions/lib/runtime/services.js';

// The start banner's data lines (scripts/start.ts): the location and network sources in service,
// and, when the data is incomplete (a fresh clone: no postal codes, no security lists), what is
// missing and the one command that fills it. The same report as GET /v1/data.

export function dataBannerLines(report: DataReport): string[] {
  const named = (role: string) => report.datasets.find((d) => d.area === 'ip' && d.role === role);
  const location = named('location');
  const network = named('network');
  const lines = [
    `  IP data:         ${location?.name ?? 'none'} (location), ${network?.name ?? 'none'} (network), version ${report.versions.ip ?? 'none'}`,
  ];
  if (report.missing.length > 0) {
    lines.push(
      '',
      'DATA INCOMPLETE: this data layer has no',
      ...report.missing.map((m) => `  - ${m}`),
      `  ${report.fix ?? ''}`,
      '  GET /v1/data lists every dataset in service.',
    );
  }
  return lines;
}

export async function dataBanner(services: Services): Promise<string> {
  return dataBannerLines(await dataReportInService(services)).join('\n');
}
