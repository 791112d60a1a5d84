import { type FieldCatalog, type FieldSelection, parseFields } from '../ip/fields.js';
import { ValidationError } from './errors.js';

/** The selection `fields` names (ip/fields.ts), or 400 invalid_fields; none when it is absent. */
export function fieldSelection(
  value: string | readonly string[] | undefined,
  catalog: FieldCatalog,
): FieldSelection | undefined {
  if (value === undefined) return undefined;
  const parsed = parseFields(value, catalog);
  if (!parsed.ok) throw new ValidationError('invalid_fields', parsed.message);
  return parsed.selection;
}
