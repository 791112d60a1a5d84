import { isPlainlyInvalid } from '../../../functions/lib/email/address-shape.js';

// The signup-form widget: it checks an <input type="email"> when the person leaves it, with the
// API's POST /v1/email/validate and a publishable key, and says below the field, politely
// (aria-live), "Did you mean jane@gmail.com?" (a button that puts it in the field), that the
// address is disposable, or that its domain takes no mail. It never blocks the form: the page
// decides, from the `netintel:result` event each check dispatches on the input. One request per
// distinct value; none for an address that cannot be valid (address-shape.ts, the API's own rule).

export interface WidgetOptions {
  /** The API's address, e.g. https://api.example.com. */
  apiUrl: string;
  /** A publishable key whose origins include this page's. */
  publishableKey: string;
  /** Wait after the field is left before checking (ms, default 300): tabbing through costs nothing. */
  debounceMs?: number;
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
  /** Set when result is null: 'invalid_syntax' (not sent), or the API's error code, or 'network_error'. */
  error?: string;
}

const NO_MAIL = new Set(['none', 'null_mx', 'no_domain']);
let hints = 0;

function endpoint(apiUrl: string, path: string): string {
  return apiUrl.replace(/\/+$/, '') + path;
}

async function post(options: WidgetOptions, email: string): Promise<EmailCheck> {
  const res = await fetch(endpoint(options.apiUrl, '/v1/email/validate'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Api-Key': options.publishableKey },
    body: JSON.stringify({ email }),
  });
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) throw new Error(body.error ?? `http_${res.status}`);
  return body as EmailCheck;
}

/** Enhances one input; returns a function that removes the widget again. */
export function enhance(input: HTMLInputElement, options: WidgetOptions): () => void {
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
  let current = '';

  const say = (kind: string, text: string, suggestion?: string) => {
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
    current = email;
    if (email === '') return say('', '');
    if (isPlainlyInvalid(email)) {
      say('', '');
      return dispatch({ email, result: null, error: 'invalid_syntax' });
    }
    let pending = checks.get(email);
    if (!pending) {
      pending = post(options, email);
      checks.set(email, pending);
      // A failed call may be tried again with the same value later.
      pending.catch(() => checks.delete(email));
    }
    try {
      const result = await pending;
      if (current !== email) return;
      if (result.didYouMean) say('suggestion', messages.suggestion, result.didYouMean);
      else if (result.isDisposable) say('disposable', messages.disposable);
      else if (result.mx && NO_MAIL.has(result.mx.status)) say('no-mail-server', messages.noMailServer);
      else say('', '');
      dispatch({ email, result });
    } catch (error) {
      // Never in the person's way: the API being unreachable or refusing the origin shows nothing.
      if (current === email) say('', '');
      dispatch({
        email,
        result: null,
        error: error instanceof TypeError ? 'network_error' : (error as Error).message,
      });
    }
  };

  const onBlur = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void check(), options.debounceMs ?? 300);
  };
  const onFocus = () => clearTimeout(timer);
  input.addEventListener('blur', onBlur);
  input.addEventListener('focus', onFocus);
  return () => {
    clearTimeout(timer);
    input.removeEventListener('blur', onBlur);
    input.removeEventListener('focus', onFocus);
    hint.remove();
    input.setAttribute('aria-describedby', describedBy ?? '');
    if (!describedBy) input.removeAttribute('aria-describedby');
  };
}

/**
 * Selects the visitor's country (GET /v1/geo) in a <select> whose option values are ISO 3166-1
 * alpha-2 codes, unless the person has chosen one already. Resolves to the code, or null.
 */
export async function prefillCountry(
  select: HTMLSelectElement,
  options: Pick<WidgetOptions, 'apiUrl' | 'publishableKey'>,
): Promise<string | null> {
  const before = select.value;
  try {
    const res = await fetch(endpoint(options.apiUrl, '/v1/geo'), {
      headers: { 'X-Api-Key': options.publishableKey },
    });
    if (!res.ok) return null;
    const { country } = (await res.json()) as { country?: string | null };
    if (!country || select.value !== before) return null; // chosen meanwhile: the person's choice stays
    const option = [...select.options].find((o) => o.value.toUpperCase() === country);
    if (!option) return null;
    select.value = option.value;
    select.dispatchEvent(new Event('change', { bubbles: true }));
    return country;
  } catch {
    return null;
  }
}
