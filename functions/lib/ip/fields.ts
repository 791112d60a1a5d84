import type * as z from '../zod.js';

// Field selection of the IP answers (`?fields=country,city,security.isVpn` on GET /v1/geo and GET
// /v1/lookup/{ip}, `"fields"` in the body of POST /v1/lookup; docs/api.md: Field selection). A
// caller names top-level fields and fields one level down (`group.field`); the answer holds exactly
// those, plus the fields it always has (`ip`, and `found` on the lookups). The lookup also skips
// the work of what is not asked for (lookup.ts: security flags, network, sun, holidays).

/**
 * At most this many names, and this many characters in all: the list is bounded work. The length
 * leaves room for the limit of the longest names with spaces around each; it is checked first,
 * before the list is split.
 */
export const FIELDS_MAX_NAMES = 100;
export const FIELDS_MAX_LENGTH = 8000;

/** What a result may be asked for: each top-level field, with its own fields when it is an object. */
export type FieldCatalog = ReadonlyMap<string, ReadonlySet<string> | null>;

/** The fields asked for: whole top-level fields, and the inner fields asked of the others. */
export interface FieldSelection {
  readonly whole: ReadonlySet<string>;
  readonly inner: ReadonlyMap<string, ReadonlySet<string>>;
}

// By each schema's kind (def.type) rather than its class: this module needs zod's types only, so
// the handlers that select fields load no zod for it.
function objectOf(schema: z.core.$ZodType): z.core.$ZodObject | null {
  let current: z.core.$ZodType = schema;
  for (let i = 0; i < 5; i++) {
    const def = current._zod.def;
    if (def.type === 'object') return current as z.core.$ZodObject;
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') {
      current = (def as z.core.$ZodOptionalDef | z.core.$ZodNullableDef | z.core.$ZodDefaultDef).innerType;
      continue;
    }
    return null;
  }
  return null;
}

/** The catalog of an answer's schema (an object schema, its groups possibly nullable or optional). */
export function fieldCatalog(schema: z.core.$ZodObject): FieldCatalog {
  const catalog = new Map<string, ReadonlySet<string> | null>();
  for (const [name, field] of Object.entries(schema._zod.def.shape)) {
    const inner = objectOf(field);
    catalog.set(name, inner ? new Set(Object.keys(inner._zod.def.shape)) : null);
  }
  return catalog;
}

export type FieldsParse = { ok: true; selection: FieldSelection } | { ok: false; message: string };

/**
 * The selection a `fields` value names: a comma-separated string or an array of names, spaces
 * around names ignored. Unknown names, a group's field of a field that is not a group, an empty
 * list and a list over the bounds are refused with a message that names them.
 */
export function parseFields(value: string | readonly string[], catalog: FieldCatalog): FieldsParse {
  const tooLong = (): FieldsParse => ({
    ok: false,
    message: `fields: at most ${FIELDS_MAX_NAMES} names and ${FIELDS_MAX_LENGTH} characters.`,
  });
  // An array's length is bounded by its body; its characters are counted as a comma-separated list's.
  if (typeof value !== 'string' && value.length > FIELDS_MAX_LENGTH) return tooLong();
  const length = typeof value === 'string' ? value.length : value.reduce((n, s) => n + s.length + 1, 0);
  if (length > FIELDS_MAX_LENGTH) return tooLong();
  // Names are what is left once empty pieces (`a,,b`, a trailing comma) are dropped.
  const names = (typeof value === 'string' ? value.split(',') : value)
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (names.length > FIELDS_MAX_NAMES) return tooLong();
  if (names.length === 0)
    return { ok: false, message: 'fields: name at least one field, e.g. fields=country,city.' };
  const whole = new Set<string>();
  const inner = new Map<string, Set<string>>();
  const unknown: string[] = [];
  for (const name of names) {
    const dot = name.indexOf('.');
    const top = dot < 0 ? name : name.slice(0, dot);
    const sub = dot < 0 ? null : name.slice(dot + 1);
    const group = catalog.get(top);
    if (group === undefined || (sub !== null && (group === null || !group.has(sub)))) {
      unknown.push(name);
      continue;
    }
    if (sub === null) whole.add(top);
    else inner.set(top, (inner.get(top) ?? new Set()).add(sub));
  }
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 5).map((n) => JSON.stringify(n.slice(0, 60)));
    return {
      ok: false,
      message: `fields: unknown field${unknown.length > 1 ? 's' : ''} ${shown.join(', ')}${
        unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''
      }. Known: ${[...catalog.keys()].join(', ')} (a group's own fields as group.field).`,
    };
  }
  // A whole group asked for covers any of its fields asked for as well.
  for (const top of whole) inner.delete(top);
  return { ok: true, selection: { whole, inner } };
}

/** Whether the answer needs `field` (a top-level field), wholly or in part. No selection: all. */
export function wants(selection: FieldSelection | undefined, field: string): boolean {
  return selection === undefined || selection.whole.has(field) || selection.inner.has(field);
}

/**
 * The answer with only the selected fields, and `always` (in the answer's own order). A group that
 * is null stays null; an absent field stays absent (security on a plan without it).
 */
export function selectFields<T extends object>(
  answer: T,
  selection: FieldSelection,
  always: readonly string[],
): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(answer)) {
    if (always.includes(key) || selection.whole.has(key)) {
      out[key] = value;
      continue;
    }
    const fields = selection.inner.get(key);
    if (!fields) continue;
    if (value === null || typeof value !== 'object') {
      out[key] = value;
      continue;
    }
    const group: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) if (fields.has(name)) group[name] = inner;
    out[key] = group;
  }
  return out as Partial<T>;
}
