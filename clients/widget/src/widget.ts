import { isPlainlyInvalid } from '../../../functions/lib/email/address-shape.js';

// The signup-form widget: it checks an <input type="email"> when the person leaves it, with the
// API's POST /v1/email/validate and a publishable key, and says below the field, politely
// (aria-live), "Did you mean jane@gmail.com?" (a button that puts it in the field), that the
// address is disposable, or that its domain takes no mail. It never blocks the form: the page
// decides, from the `netintel:result` event each check dispatches on the input. One request per
// distinct value; none for an address that cannot be valid (address-shape.ts, the API's own rule).
// A hint is about one value: it goes as soon as the field holds another, and an answer for a value
// the field no longer holds, or older than the latest check, is dropped (no hint, no event).

export interface WidgetOptions {
  /** The API's address, e.g. https://api.example.com. */
  apiUrl: string;
  /** A publishable key whose origins include this page's. */
  publishableKey: string;
  /** Wait after the field is left before checking (ms, default 300): tabbing through costs nothing. */
  debounceMs?: number;
  /** Longest wait for the API's answer (ms, default 8000); past it the event says 'timeout'. */
  timeoutMs?: number;
  /** The texts shown; {email} is replaced by the suggestion. */
  messages?: Partial<Messages>;
}

export interface Messages {
  suggestion: string;
  disposable: string;
  noMailServer: string;
}

const MESSAGES: Messages = {
  suggestion: 'Did you mean {email}?',
  disposable: 'This looks like a disposable address: use one you will keep.',
  noMailServer: 'This domain does not receive email: check the address.',
};

/** The API's email check result: the fields the widget reads (the event carries all of them). */
export interface EmailCheck {
  email: string;
  didYouMean: string | null;
  isDisposable: boolean;
  mx: { status: string } | null;
  verdict: string;
  reasons: string[];
  [field: string]: unknown;
}

/** `netintel:result`'s detail: the API's answer, or null with why there is none. */
export interface ResultDetail {
  email: string;
  result: EmailCheck | null;
  /**
   * Set when result is null: 'invalid_syntax' (not sent), the API's error code, 'invalid_response' (an
   * answer that is not a JSON object), 'network_error', or
   * 'timeout' (no answer within timeoutMs). A failed check is not kept: the next one asks again.
   */
  error?: string;
}

const NO_MAIL = new Set(['none', 'null_mx', 'no_domain']);
let hints = 0;
let saidSecret = false;

/** A secret key in a page is anyone's who views its source: refused, said once, and nothing is sent. */
function secretKey({ publishableKey }: Pick<WidgetOptions, 'publishableKey'>): boolean {
  const secret = /^ni_(test_)?sec_/.test(publishableKey);
  if (secret && !saidSecret) {
    saidSecret = true;
    console.error(
      'netintel widget: the key is a secret key (ni_sec_…), which must never be in a web page: nothing is sent. Use a publishable key (ni_pub_…) and replace the exposed secret key.',
    );
  }
  return secret;
}

/** One API call under options.timeoutMs: its JSON answer, or an Error whose message is the error code. */
async function call<T>(
  options: Pick<WidgetOptions, 'apiUrl' | 'publishableKey' | 'timeoutMs'>,
  path: string,
  body?: unknown,
): Promise<T> {
  const abort = new AbortController();
  // Infinity (or anything past setTimeout's range, which would fire at once) is no limit in practice.
  const timer = setTimeout(() => abort.abort(), Math.min(options.timeoutMs ?? 8_000, 2 ** 31 - 1));
  try {
    const res = await fetch(options.apiUrl.replace(/\/+$/, '') + path, {
      method: body ? 'POST' : 'GET',
      headers: {
        'X-Api-Key': options.publishableKey,
        ...(body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: abort.signal,
    });
    // Not JSON (a proxy's page, a captive portal): no result, with an error, as the API would never answer.
    const answer = (await res.json().catch(() => undefined)) as { error?: unknown } | undefined;
    if (abort.signal.aborted) throw new Error('timeout');
    const object = typeof answer === 'object' && answer !== null && !Array.isArray(answer);
    if (!res.ok)
      throw new Error(object && typeof answer.error === 'string' ? answer.error : `http_${res.status}`);
    if (!object) throw new Error('invalid_response');
    return answer as T;
  } catch (error) {
    throw new Error(
      abort.signal.aborted
        ? 'timeout'
        : error instanceof TypeError
          ? 'network_error'
          : (error as Error).message,
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Marks an enhanced input, in the page itself: a second copy of the script (two script tags, or the
 * module beside the script tag) sees it too, so a field is never checked twice (each check is billed).
 */
const ENHANCED = 'netintelEnhanced';

/**
 * Enhances one input; returns a function that removes the widget again. A secret key enhances
 * nothing, nor does an input already enhanced (its first enhance() keeps it).
 */
export function enhance(input: HTMLInputElement, options: WidgetOptions): () => void {
  if (secretKey(options)) return () => undefined;
  if (input.dataset[ENHANCED] !== undefined) return () => undefined;
  input.dataset[ENHANCED] = '';
  const messages = { ...MESSAGES, ...options.messages };
  const checks = new Map<string, Promise<EmailCheck>>();
  const hint = document.createElement('div');
  hint.className = 'netintel-hint';
  hint.id = `netintel-hint-${++hints}`;
  hint.setAttribute('aria-live', 'polite');
  input.after(hint);
  const describedBy = input.getAttribute('aria-describedby');
  input.setAttribute('aria-describedby', describedBy ? `${describedBy} ${hint.id}` : hint.id);

  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The latest check's number: an answer to an earlier one is dropped. */
  let latest = 0;
  /** The value the hint is about, and what it shows ('' when nothing). */
  let about = '';
  let shown = '';

  const say = (email: string, kind = '', text = '', suggestion = '') => {
    about = email;
    const next = kind && `${kind}\n${text}\n${suggestion}`;
    // The same hint again stays as it is: not announced twice, and a focused suggestion keeps focus.
    if (next === shown) return;
    shown = next;
    hint.replaceChildren();
    hint.dataset.kind = kind;
    if (!text) return;
    const p = document.createElement('p');
    if (suggestion) {
      const [before = '', after = ''] = text.split('{email}');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'netintel-suggestion';
      button.textContent = suggestion;
      button.addEventListener('click', () => {
        input.value = suggestion;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        input.dispatchEvent(new Event('change', { bubbles: true }));
        input.focus();
        void check();
      });
      p.append(before, button, after);
    } else {
      p.textContent = text;
    }
    hint.append(p);
  };

  const dispatch = (detail: ResultDetail) => {
    input.dispatchEvent(new CustomEvent<ResultDetail>('netintel:result', { detail, bubbles: true }));
  };

  const check = async () => {
    const email = input.value.trim();
    const id = ++latest;
    if (email !== about) say('');
    if (email === '') return;
    if (isPlainlyInvalid(email)) return dispatch({ email, result: null, error: 'invalid_syntax' });
    let pending = checks.get(email);
    if (!pending) {
      pending = call<EmailCheck>(options, '/v1/email/validate', { email });
      checks.set(email, pending);
      // A failed call (a timeout included) is not kept: the same value is asked again next time.
      pending.catch(() => checks.delete(email));
    }
    // Only the latest check's answer counts, and only while the field still holds its value.
    const current = () => id === latest && input.value.trim() === email;
    try {
      const result = await pending;
      if (!current()) return;
      if (result.didYouMean) say(email, 'suggestion', messages.suggestion, result.didYouMean);
      else if (result.isDisposable) say(email, 'disposable', messages.disposable);
      else if (result.mx && NO_MAIL.has(result.mx.status))
        say(email, 'no-mail-server', messages.noMailServer);
      else say(email);
      dispatch({ email, result });
    } catch (error) {
      if (!current()) return;
      // Never in the person's way: the API being unreachable, slow or refusing the origin shows nothing.
      say(email);
      dispatch({ email, result: null, error: (error as Error).message });
    }
  };

  const onBlur = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void check(), options.debounceMs ?? 300);
  };
  const onFocus = () => clearTimeout(timer);
  // A hint about another value than the field's goes at once: never a stale suggestion to click.
  const onInput = () => {
    if (input.value.trim() !== about) say('');
  };
  input.addEventListener('blur', onBlur);
  input.addEventListener('focus', onFocus);
  input.addEventListener('input', onInput);
  return () => {
    clearTimeout(timer);
    latest++;
    input.removeEventListener('blur', onBlur);
    input.removeEventListener('focus', onFocus);
    input.removeEventListener('input', onInput);
    hint.remove();
    delete input.dataset[ENHANCED];
    input.setAttribute('aria-describedby', describedBy ?? '');
    if (!describedBy) input.removeAttribute('aria-describedby');
  };
}

/** Marks a <select> being or already filled (data-netintel-country-filled), in the page itself, as ENHANCED marks an input. */
const COUNTRY_FILLED = 'netintelCountryFilled';

/**
 * Selects the visitor's country (GET /v1/geo) in a <select> whose option values are ISO 3166-1
 * alpha-2 codes, unless the person has chosen one already. Resolves to the code, or null. A select
 * is filled once (each request is billed): a second copy of the script, or a second call, asks
 * nothing while the first is under way or done; after a failed request a later call asks again.
 */
export async function prefillCountry(
  select: HTMLSelectElement,
  options: Pick<WidgetOptions, 'apiUrl' | 'publishableKey' | 'timeoutMs'>,
): Promise<string | null> {
  if (secretKey(options)) return null;
  if (select.dataset[COUNTRY_FILLED] !== undefined) return null;
  select.dataset[COUNTRY_FILLED] = '';
  const before = select.value;
  try {
    const { country } = await call<{ country?: string | null }>(options, '/v1/geo');
    if (!country || select.value !== before) return null; // chosen meanwhile: the person's choice stays
    const option = [...select.options].find((o) => o.value.toUpperCase() === country);
    if (!option) return null;
    select.value = option.value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
    return country;
  } catch {
    delete select.dataset[COUNTRY_FILLED];
    return null;
  }
}
