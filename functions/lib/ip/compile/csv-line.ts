// RFC 4180 field splitting for one line of the data-layer CSV sources (ASN ranges, postal codes).
// Neither source puts line breaks inside quoted fields, so a record is one line; a line whose quotes
// do not balance is an error rather than a silently merged record.

export function splitCsvLine(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"') {
        if (line[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
    } else {
      field += c;
    }
  }
  if (quoted) throw new Error(`unbalanced quotes in CSV line: ${line.slice(0, 120)}`);
  fields.push(field);
  return fields;
}
