import { DataReportSchema } from '../lib/data-report.js';
import type { RouteContract } from '../lib/http/contract.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  response: DataReportSchema,
  examples,
};
