import * as z from 'zod';
import { ValidationError } from '../http/errors.js';

// Query parameters shared by the IP routes.
export const IncludeSchema = z
  .enum(['hostname'])
  .optional()
  .describe('hostname: add a reverse-DNS (PTR) lookup (short timeout; null on failure).');

export function includeHostname(query: Record<string, string>): boolean {
  const include = query.include;
  if (include === undefined || include === '') return false;
  if (include !== 'hostname') throw new ValidationError('invalid_query', 'include takes the value hostname.');
  return true;
}
