// RFC 4180 field splitting for one line of CSV: the data-layer sources (ASN ranges, postal codes) and
// geofeeds. Neither puts line breaks inside quoted fields, so a record is one line; a line whose
// quotes do not balance is an error rather than a silently merged record. A quote opens a quoted
// field only at the field's start: inside an unquoted field it is an ordinary character (`O"Brien`,
// `=HYPERLINK("x")`), as the list-job CSV reader reads it, never silently dropped.

/** A line that is not CSV; `reason` says why, without quoting the line. */
export class CsvLineError extends Error {
  constructor(
    readonly reason: 'unbalanced quotes' | 'text after a closing quote',
    line: string,
  ) {
    super(`${reason} in CSV line: ${line.slice(0, 120)}`);
    this.name = 'CsvLineError';
  }
}

/**
 * The fields of one CSV line. `strict` refuses text between a closing quote and the next comma
 * (`"San Jose"x`), which RFC 4180 does not allow; without it that text is kept (`San Josex`), so a
 * sloppy upstream source still loads.
 */
export function splitCsvLine(line: string, options: { strict?: boolean } = {}): string[] {
  if (!line.includes('"')) return line.split(',');
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStart = true;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c !== '"') {
        field += c;
      } else if (line[i + 1] === '"') {
        field += '"';
        i++;
      } else {
        quoted = false;
        const next = line[i + 1];
        if (options.strict && next !== undefined && next !== ',') {
          throw new CsvLineError('text after a closing quote', line);
        }
      }
    } else if (c === ',') {
      fields.push(field);
      field = '';
      fieldStart = true;
      continue;
    } else if (c === '"' && fieldStart) {
      quoted = true;
    } else {
      field += c;
    }
    fieldStart = false;
  }
  if (quoted) throw new CsvLineError('unbalanced quotes', line);
  fields.push(field);
  return fields;
}
