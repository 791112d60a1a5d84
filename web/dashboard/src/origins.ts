// Allowed origins are typed one per line (or separated by commas or spaces); the API checks each
// one and says which it refuses.

export function parseOrigins(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

export function originsText(origins: readonly string[]): string {
  return origins.join('\n');
}
