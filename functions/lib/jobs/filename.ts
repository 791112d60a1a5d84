// The name a list job is shown back with (docs/api.md: Email list jobs): from ?filename=, a JSON
// body's `filename` or a form's file part. It is echoed by the API, the dashboard and the jobs CLI,
// so it holds no control character: an ESC would drive the terminal that prints it, a CR or LF
// forge a line, a NUL cut it short.

export const FILENAME_MAX = 255;

/** C0 controls, DEL and C1 controls (U+0080 to U+009F, which some terminals obey too). */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

export const FILENAME_MESSAGES = {
  tooLong: 'filename is too long.',
  control: `filename holds a control character (such as ESC, CR, LF or NUL): send a name of printable characters, at most ${FILENAME_MAX}.`,
} as const;

/** Why a job's filename is refused, or undefined when it may be kept. */
export function filenameProblem(name: string | null | undefined): string | undefined {
  if (name === null || name === undefined) return undefined;
  if (name.length > FILENAME_MAX) return FILENAME_MESSAGES.tooLong;
  if (hasControlCharacter(name)) return FILENAME_MESSAGES.control;
  return undefined;
}
