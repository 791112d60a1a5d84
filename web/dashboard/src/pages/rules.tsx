import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, type Tagged } from '../api.js';
import type {
  EmailCheckResult,
  EmailRules,
  GeofeedLine,
  NewTravelSettings,
  RelayAliasPolicy,
  TravelSettings,
} from '../api-types.js';
import { BusyButton } from '../components/busy-button.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { ErrorMessage, Loading, Status } from '../components/messages.js';
import { PageHeading } from '../components/page-heading.js';
import { bytes, count, dateTime } from '../format.js';
import { TRAVEL_BOUNDS, TRAVEL_DEFAULTS, type TravelField } from '../travel-limits.js';
import { asApiError, useLoad } from '../use-load.js';

// The account's own rules (docs/rules.md), managed with the session in place of the secret key:
// its email allow and block lists and relay-alias policy (with a try of one address against them),
// its private geofeed, its travel settings. A change is in force on the account's calls within the
// key cache's few seconds; managing rules is not billed, a try is (one email check).

export function RulesPage() {
  return (
    <>
      <PageHeading>Rules</PageHeading>
      <p>
        Your account's own corrections to the global policy: they change your account's answers only, and are
        in force on every call within seconds of a change. Managing rules is not billed.
      </p>
      <EmailRulesSection />
      <TryAddress />
      <GeofeedSection />
      <TravelSection />
    </>
  );
}

/** "the dashboard", "the API key key_…", "an operator (admin CLI)": who made a change. */
function whoChanged(by: string): string {
  if (by === 'dashboard') return 'the dashboard';
  if (by.startsWith('dashboard:')) return `${by.slice('dashboard:'.length)} (dashboard)`;
  if (by === 'admin') return 'an operator (admin CLI)';
  if (by.startsWith('key:')) return `the API key ${by.slice('key:'.length)}`;
  return by;
}

function lastChange(at: string | null, by: string | null, never: string): string {
  if (!at) return never;
  return `Last changed ${dateTime(at)}${by ? ` by ${whoChanged(by)}` : ''}.`;
}

/** One entry a line (commas and spaces also separate); the API normalises and checks each. */
function entriesOf(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

// Each section keeps the tag (ETag) of the rules it shows, from its read and from each change it
// made, and sends it with its next change: one that another save (another tab, a script) beat is
// refused with 412 rules_changed and applied over nothing. The section then says so in the API's
// words, with a button that reads the rules again: what is shown and the tag are the current ones,
// the form keeps what the person typed, and their next save goes with the new tag.

/** A save's error; one refused as rules_changed comes with a way to read the rules again. */
function SaveError({
  error,
  what,
  onReload,
}: {
  error: ApiError | null;
  what: string;
  onReload(): Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  if (!error) return null;
  if (error.code !== 'rules_changed') return <ErrorMessage error={error} />;
  async function reload() {
    setBusy(true);
    try {
      await onReload();
    } finally {
      setBusy(false);
    }
  }
  return (
    <div class="rules-changed">
      <ErrorMessage error={error} />
      <BusyButton type="button" busy={busy} onClick={reload}>
        Reload the current {what}
      </BusyButton>
    </div>
  );
}

/**
 * What every rules form keeps: its save's error and busy flag, its save button, and the reload a
 * refused save offers. The reload button goes with the error: once the rules are read again the
 * focus moves to the save it is for. A form started again from a save's answer (`afterSave`) is a
 * new one: the focus, on the old form's save button, goes to the new one's.
 */
function useSaveState(onReload: () => Promise<ApiError | null>, afterSave = false) {
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (afterSave) button.current?.focus();
  }, []);
  async function reload() {
    const problem = await onReload();
    setError(problem);
    if (!problem) button.current?.focus();
  }
  return { error, setError, busy, setBusy, button, reload };
}

/** Reads a section's rules again after a refused save: null once they are shown, else the error. */
async function readAgain<T>(read: () => Promise<T>, show: (value: T) => void): Promise<ApiError | null> {
  try {
    show(await read());
    return null;
  } catch (err) {
    return asApiError(err);
  }
}

// ---------------------------------------------------------------------------------------------
// Email rules

type ListKey = 'allowDomains' | 'allowMx' | 'blockDomains' | 'blockMx' | 'blockTlds';

interface ListField {
  key: ListKey;
  label: string;
  help: string;
  placeholder: string;
}

const ALLOW_LISTS: readonly ListField[] = [
  {
    key: 'allowDomains',
    label: 'Allowed domains',
    help: 'Never reported disposable nor as a typo. Each covers its subdomains.',
    placeholder: 'partner.example',
  },
  {
    key: 'allowMx',
    label: 'Allowed mail servers',
    help: 'Domains whose mail server (MX host) is one of these, or under one, are trusted alike.',
    placeholder: 'mx.partner.example',
  },
];

const BLOCK_LISTS: readonly ListField[] = [
  {
    key: 'blockDomains',
    label: 'Blocked domains',
    help: 'Verdict reject, reason blocked_by_account. Each covers its subdomains.',
    placeholder: 'competitor.example',
  },
  {
    key: 'blockMx',
    label: 'Blocked mail servers',
    help: 'Domains served by these mail servers (or hosts under them) are rejected.',
    placeholder: 'mx.spam.example',
  },
  {
    key: 'blockTlds',
    label: 'Blocked top-level domains',
    help: 'With or without the dot: zip or .zip.',
    placeholder: 'zip',
  },
];

const RELAY_TEXT: Readonly<Record<RelayAliasPolicy, { option: string; explanation: string }>> = {
  accept: {
    option: 'Accept (the default)',
    explanation: 'A relay alias gets no reason of its own: its verdict is that of the other checks.',
  },
  review: {
    option: 'Review',
    explanation: 'A relay alias gets reason relay_alias and at least the verdict review.',
  },
  reject: {
    option: 'Reject',
    explanation: 'A relay alias gets reason relay_alias and the verdict reject.',
  },
};

function listsOf(rules: EmailRules): Record<ListKey, string> {
  return {
    allowDomains: rules.allow.domains.join('\n'),
    allowMx: rules.allow.mxHosts.join('\n'),
    blockDomains: rules.block.domains.join('\n'),
    blockMx: rules.block.mxHosts.join('\n'),
    blockTlds: rules.block.tlds.join('\n'),
  };
}

function EmailRulesSection() {
  const rules = useLoad(api.emailRules);
  const [said, setSaid] = useState('');
  // Each save starts the form again from the API's answer (its lists as normalised).
  const [saves, setSaves] = useState(0);
  return (
    <section class="card" aria-labelledby="email-rules-title">
      <h2 id="email-rules-title">Email rules</h2>
      <p>
        Domains and mail servers your account trusts or refuses, on every email check: single addresses,
        batches, signup checks, and the list jobs created after the change. Blocking wins over allowing.
      </p>
      {rules.loading && !rules.data && <Loading what="email rules" />}
      <ErrorMessage error={rules.error} />
      {rules.data && (
        <>
          <p class="help">
            {count(rules.data.value.entries)} {rules.data.value.entries === 1 ? 'entry' : 'entries'}.{' '}
            {lastChange(
              rules.data.value.updatedAt,
              rules.data.value.updatedBy,
              'Never changed: no entries of your own.',
            )}
          </p>
          <EmailRulesForm
            key={saves}
            afterSave={saves > 0}
            rules={rules.data}
            onStart={() => setSaid('')}
            onSaved={(saved) => {
              rules.set(saved);
              setSaves(saves + 1);
              setSaid(
                `Email rules saved: ${count(saved.value.entries)} ${saved.value.entries === 1 ? 'entry' : 'entries'}.`,
              );
            }}
            onReload={() =>
              readAgain(api.emailRules, (current) => {
                rules.set(current);
                setSaid(READ_AGAIN('email rules'));
              })
            }
          />
        </>
      )}
      {said && <Status>{said}</Status>}
    </section>
  );
}

/** The status once a section read its rules again after a refused save. */
const READ_AGAIN = (what: string) =>
  `The current ${what} are shown above; the form still holds your changes. Check them, then save again.`;

// Each save attempt starts by clearing the section's last message (onStart), so a failed save's
// error never stands beside the success of the one before.
function EmailRulesForm({
  rules,
  afterSave,
  onSaved,
  onStart,
  onReload,
}: {
  rules: Tagged<EmailRules>;
  afterSave: boolean;
  onSaved(saved: Tagged<EmailRules>): void;
  onStart(): void;
  onReload(): Promise<ApiError | null>;
}) {
  const [lists, setLists] = useState(() => listsOf(rules.value));
  const [relay, setRelay] = useState<RelayAliasPolicy>(rules.value.relayAliases);
  const { error, setError, busy, setBusy, button: saveButton, reload } = useSaveState(onReload, afterSave);

  async function submit(e: Event) {
    e.preventDefault();
    onStart();
    setBusy(true);
    setError(null);
    try {
      onSaved(
        await api.setEmailRules(
          {
            allow: { domains: entriesOf(lists.allowDomains), mxHosts: entriesOf(lists.allowMx) },
            block: {
              domains: entriesOf(lists.blockDomains),
              mxHosts: entriesOf(lists.blockMx),
              tlds: entriesOf(lists.blockTlds),
            },
            relayAliases: relay,
          },
          rules.etag,
        ),
      );
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  }

  const list = (f: ListField) => (
    <div key={f.key}>
      <label for={`rules-${f.key}`}>{f.label}</label>
      <textarea
        id={`rules-${f.key}`}
        class="entries"
        rows={4}
        spellcheck={false}
        autocapitalize="off"
        autocomplete="off"
        aria-describedby={`rules-${f.key}-help`}
        placeholder={f.placeholder}
        value={lists[f.key]}
        onInput={(e) => setLists({ ...lists, [f.key]: e.currentTarget.value })}
      />
      <p id={`rules-${f.key}-help`} class="help">
        {f.help}
      </p>
    </div>
  );

  return (
    <form onSubmit={submit}>
      <p class="help">One entry a line.</p>
      <div class="rule-lists">
        <fieldset>
          <legend>Allow</legend>
          {ALLOW_LISTS.map(list)}
        </fieldset>
        <fieldset>
          <legend>Block</legend>
          {BLOCK_LISTS.map(list)}
        </fieldset>
      </div>
      <label for="rules-relay">Privacy-relay aliases</label>
      <select
        id="rules-relay"
        aria-describedby="rules-relay-help"
        value={relay}
        onChange={(e) => setRelay(e.currentTarget.value as RelayAliasPolicy)}
      >
        {(Object.keys(RELAY_TEXT) as RelayAliasPolicy[]).map((p) => (
          <option key={p} value={p}>
            {RELAY_TEXT[p].option}
          </option>
        ))}
      </select>
      <p id="rules-relay-help" class="help">
        Apple Hide My Email, Firefox Relay, DuckDuckGo, SimpleLogin, addy.io and Proton Pass addresses forward
        to a real inbox. {RELAY_TEXT[relay].explanation}
      </p>
      <SaveError error={error} what="email rules" onReload={reload} />
      <BusyButton buttonRef={saveButton} class="primary" busy={busy}>
        Save email rules
      </BusyButton>
    </form>
  );
}

// ---------------------------------------------------------------------------------------------
// Try an address

type ReasonCode = EmailCheckResult['reasons'][number];

const REASON_TEXT: Readonly<Record<ReasonCode, string>> = {
  invalid_syntax: 'not a valid address',
  blocked_by_account: 'blocked by your email rules',
  domain_not_found: 'the domain does not exist',
  no_mail_server: 'the domain takes no mail',
  disposable_domain: 'a disposable-address provider',
  relay_alias: 'a privacy-relay alias (your relay-alias rule)',
  typo_suspected: 'looks like a typo',
  role_account: 'a role address, such as admin@ or info@',
  implicit_mx: "no MX record: mail would go to the domain's own address",
  dns_unavailable: 'DNS did not answer in time',
};

const VERDICT_TEXT: Readonly<Record<EmailCheckResult['verdict'], string>> = {
  accept: 'Accept',
  review: 'Review',
  reject: 'Reject',
};

function TryAddress() {
  const [email, setEmail] = useState('');
  const [result, setResult] = useState<EmailCheckResult | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    // Each try is billed: one that is only spaces is not sent.
    const address = email.trim();
    if (!address) {
      setResult(null);
      setError(new ApiError(0, 'client_error', 'Enter an email address to try.'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const [checked] = await api.checkEmails([address]);
      setResult(checked ?? null);
    } catch (err) {
      setResult(null);
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="card" aria-labelledby="try-title">
      <h2 id="try-title">Try an address</h2>
      <form class="inline-form" onSubmit={submit}>
        <label for="try-email">Email address</label>
        <input
          id="try-email"
          required
          inputMode="email"
          autocomplete="off"
          autocapitalize="off"
          spellcheck={false}
          aria-describedby="try-help"
          placeholder="someone@example.com"
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <p id="try-help" class="help">
          Checked as your calls are, with your rules in force (POST /v1/email/batch). Each try is billed as
          one email check.
        </p>
        <BusyButton class="primary" busy={busy}>
          Try the address
        </BusyButton>
      </form>
      <ErrorMessage error={error} />
      {result && <TryResult result={result} />}
    </section>
  );
}

function TryResult({ result: r }: { result: EmailCheckResult }) {
  return (
    <div class="try-result">
      <Status>
        {r.email}: {VERDICT_TEXT[r.verdict]}
        {r.reasons.length > 0 ? ` (${r.reasons.join(', ')})` : ''}.
      </Status>
      <dl class="facts">
        <dt>Verdict</dt>
        <dd>
          <span class={`badge verdict-${r.verdict}`}>{VERDICT_TEXT[r.verdict]}</span>
        </dd>
        <dt>Reasons</dt>
        <dd>
          {r.reasons.length === 0 ? (
            'None'
          ) : (
            <ul class="plain reasons">
              {r.reasons.map((code) => (
                <li key={code}>
                  <code>{code}</code> {REASON_TEXT[code]}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Privacy-relay alias</dt>
        <dd>{r.isRelayAlias ? `Yes${r.relayProvider ? `: ${r.relayProvider}` : ''}` : 'No'}</dd>
        <dt>Did you mean</dt>
        <dd>{r.didYouMean ?? '—'}</dd>
        <dt>Mail server</dt>
        <dd>{r.mx ? `${r.mx.status}${r.mx.host ? ` (${r.mx.host})` : ''}` : '—'}</dd>
      </dl>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Private geofeed

interface Feed {
  csv: string;
  prefixes: number;
  bytes: number;
  updatedAt: string | null;
  updatedBy: string | null;
}

/** The largest feed the API takes, in bytes (1 MiB; it answers a larger one 413 body_too_large). */
const GEOFEED_MAX_BYTES = 1_048_576;

/** Entry lines of a feed (neither blank nor comments): its prefixes, once the API accepted it. */
function prefixesOf(csv: string): number {
  return csv.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#')).length;
}

/** The account's feed as the API has it, with its tag. */
async function readFeed(): Promise<{ current: Feed | null; etag: string | null }> {
  const { value: file, etag } = await api.geofeed();
  const current: Feed | null = file && {
    csv: file.csv,
    prefixes: prefixesOf(file.csv),
    bytes: new TextEncoder().encode(file.csv).length,
    updatedAt: file.updatedAt,
    updatedBy: null,
  };
  return { current, etag };
}

function GeofeedSection() {
  const feed = useLoad(readFeed);
  const [said, setSaid] = useState('');
  const [removing, setRemoving] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const current = feed.data?.current ?? null;
  const etag = feed.data?.etag ?? null;

  const reloadFeed = () =>
    readAgain(readFeed, (read) => {
      feed.set(read);
      setSaid(
        'The current geofeed is shown; a feed you were uploading is still in the box below. Check it, then try again.',
      );
    });

  async function remove() {
    setBusy(true);
    setError(null);
    setSaid('');
    try {
      feed.set({ current: null, etag: await api.deleteGeofeed(etag) });
      setSaid('The geofeed is removed: your lookups use the data alone.');
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
      setRemoving(false);
    }
  }

  return (
    <section class="card" aria-labelledby="geofeed-title">
      <h2 id="geofeed-title" ref={heading} tabIndex={-1}>
        Private geofeed
      </h2>
      <p>
        Place your own networks for your account's lookups only: RFC 8805 rows of{' '}
        <code class="wrap">ip_prefix,alpha2code,region,city,postal_code</code>. At most 10,000 prefixes and
        1&nbsp;MB; an upload replaces the whole feed, and a feed with any bad row is refused whole.
      </p>
      <h3>Current feed</h3>
      {feed.loading && !feed.data && <Loading what="the geofeed" />}
      <ErrorMessage error={feed.error} />
      {feed.data && !current && <p>None: your lookups use the data alone.</p>}
      {current && (
        <>
          <dl class="facts">
            <dt>Prefixes</dt>
            <dd>{count(current.prefixes)}</dd>
            <dt>Size</dt>
            <dd>{bytes(current.bytes)}</dd>
            <dt>Last changed</dt>
            <dd>
              {current.updatedAt ? dateTime(current.updatedAt) : '—'}
              {current.updatedBy ? ` by ${whoChanged(current.updatedBy)}` : ''}
            </dd>
          </dl>
          <div class="actions">
            <DownloadFeed csv={current.csv} />
            <button type="button" class="danger" onClick={() => setRemoving(true)}>
              Remove the geofeed
            </button>
          </div>
        </>
      )}
      <SaveError
        error={error}
        what="geofeed"
        onReload={async () => {
          const problem = await reloadFeed();
          setError(problem);
          if (!problem) heading.current?.focus();
        }}
      />
      {said && <Status>{said}</Status>}
      <UploadFeed
        etag={etag}
        onReload={reloadFeed}
        onUploaded={(summary, csv, newTag) => {
          feed.set({ current: { ...summary, csv }, etag: newTag });
          setSaid(
            `Geofeed uploaded: ${count(summary.prefixes)} ${summary.prefixes === 1 ? 'prefix' : 'prefixes'}, in force within seconds.`,
          );
        }}
        onStart={() => {
          setSaid('');
          setError(null);
        }}
      />
      {removing && (
        <ConfirmDialog
          title="Remove the private geofeed?"
          confirmLabel="Remove geofeed"
          danger
          fallbackFocusId="geofeed-title"
          busy={busy}
          onConfirm={remove}
          onCancel={() => setRemoving(false)}
        >
          <p>
            Your lookups go back to the data alone within seconds. Download the feed first to keep a copy.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The feed as a file: a link to a blob made in the page (nothing is fetched again). */
function DownloadFeed({ csv }: { csv: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const made = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [csv]);
  if (!url) return null;
  return (
    <a class="button" href={url} download="geofeed.csv">
      Download the current feed
    </a>
  );
}

function UploadFeed({
  etag,
  onUploaded,
  onStart,
  onReload,
}: {
  etag: string | null;
  onUploaded(summary: Omit<Feed, 'csv'>, csv: string, etag: string | null): void;
  onStart(): void;
  onReload(): Promise<ApiError | null>;
}) {
  const [text, setText] = useState('');
  const [read, setRead] = useState('');
  const [refused, setRefused] = useState<{ message: string; lines: readonly GeofeedLine[] } | null>(null);
  const { error, setError, busy, setBusy, button: uploadButton, reload } = useSaveState(onReload);

  async function choose(file: File) {
    setRefused(null);
    setError(null);
    setRead('');
    if (file.size > GEOFEED_MAX_BYTES) {
      setError(
        new ApiError(0, 'client_error', `${file.name} is larger than 1 MB, the most a geofeed may be.`),
      );
      return;
    }
    try {
      const csv = await file.text();
      setText(csv);
      setRead(`Read ${file.name} (${bytes(file.size)}): check the rows below, then upload.`);
    } catch (err) {
      setError(new ApiError(0, 'client_error', `${file.name} could not be read: ${(err as Error).message}`));
    }
  }

  async function submit(e: Event) {
    e.preventDefault();
    onStart();
    setBusy(true);
    setRefused(null);
    setError(null);
    setRead('');
    try {
      const { value: summary, etag: newTag } = await api.setGeofeed(text, etag);
      onUploaded(summary, text, newTag);
      setText('');
    } catch (err) {
      const e = asApiError(err);
      if (e.code === 'invalid_geofeed') setRefused({ message: e.message, lines: e.lines ?? [] });
      else setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} aria-labelledby="upload-feed-title">
      <h3 id="upload-feed-title">Upload a feed</h3>
      <label for="feed-file">Read a CSV file</label>
      <input
        id="feed-file"
        type="file"
        accept=".csv,text/csv"
        aria-describedby="feed-file-help"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) void choose(file);
          e.currentTarget.value = '';
        }}
      />
      <p id="feed-file-help" class="help">
        Its rows go in the box below, to check before uploading.
      </p>
      {read && <Status>{read}</Status>}
      <label for="feed-rows">Feed rows</label>
      <textarea
        id="feed-rows"
        class="csv"
        rows={6}
        required
        spellcheck={false}
        autocapitalize="off"
        autocomplete="off"
        aria-describedby="feed-rows-help"
        placeholder="8.8.8.0/24,DE,DE-BE,Berlin,"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <p id="feed-rows-help" class="help">
        One prefix a line; lines starting with # are comments. Empty fields take the data's value where it
        places the address in the same country.
      </p>
      {refused && <RefusedRows message={refused.message} lines={refused.lines} />}
      <SaveError error={error} what="geofeed" onReload={reload} />
      <BusyButton buttonRef={uploadButton} class="primary" busy={busy}>
        Upload the feed
      </BusyButton>
    </form>
  );
}

/** Most refused rows the API lists; its message counts the others. */
const LISTED_ROWS = 100;

/**
 * Every refused row of a feed, as a list. It takes the focus when it appears, so a screen reader
 * reads it out and a keyboard user is next to the rows to fix.
 */
function RefusedRows({ message, lines }: { message: string; lines: readonly GeofeedLine[] }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), [message, lines]);
  return (
    <div ref={ref} class="error-summary" role="alert" tabIndex={-1} aria-labelledby="feed-refused-title">
      <h4 id="feed-refused-title">The feed was not applied</h4>
      {(lines.length === 0 || lines.length >= LISTED_ROWS) && <p>{message}</p>}
      {lines.length > 0 && (
        <>
          <p>Nothing of it is in force. Fix these rows and upload it again:</p>
          <ul class="refused-rows">
            {lines.map((l) => (
              <li key={`${l.line} ${l.reason}`}>
                {l.line > 0 ? `Line ${l.line}` : 'The feed as a whole'}: {l.reason}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Travel settings

interface TravelInput {
  field: TravelField;
  label: string;
  unit: string;
  help: string;
}

const TRAVEL_INPUTS: readonly TravelInput[] = [
  {
    field: 'maxSpeedKmh',
    label: 'Maximum speed (km/h)',
    unit: 'km/h',
    help: 'Above this implied speed a move is impossible travel (risk high); above half of it, medium.',
  },
  {
    field: 'minDistanceKm',
    label: 'Minimum distance (km)',
    unit: 'km',
    help: "Moves of at most this distance, after both locations' accuracy radii, never count as travel.",
  },
  {
    field: 'minSeconds',
    label: 'Minimum time (seconds)',
    unit: 'seconds',
    help: 'Observations less than this far apart never count as travel by speed.',
  },
];

function TravelSection() {
  const travel = useLoad(api.travel);
  const [said, setSaid] = useState('');
  // Each save starts the form again from the API's answer (a field left empty shows its default).
  const [saves, setSaves] = useState(0);
  return (
    <section class="card" aria-labelledby="travel-title">
      <h2 id="travel-title">Travel settings</h2>
      <p>
        How the risk check (POST /v1/risk/check) tells impossible travel between two sign-ins. The defaults
        are the global rule's.
      </p>
      {travel.loading && !travel.data && <Loading what="travel settings" />}
      <ErrorMessage error={travel.error} />
      {travel.data && (
        <>
          <p class="help">
            {lastChange(
              travel.data.value.updatedAt,
              travel.data.value.updatedBy,
              'Never changed: the defaults apply.',
            )}
          </p>
          <TravelForm
            key={saves}
            afterSave={saves > 0}
            settings={travel.data}
            onStart={() => setSaid('')}
            onSaved={(saved) => {
              travel.set(saved);
              setSaves(saves + 1);
              setSaid('Travel settings saved.');
            }}
            onReload={() =>
              readAgain(api.travel, (current) => {
                travel.set(current);
                setSaid(READ_AGAIN('travel settings'));
              })
            }
          />
        </>
      )}
      {said && <Status>{said}</Status>}
    </section>
  );
}

function TravelForm({
  settings,
  afterSave,
  onSaved,
  onStart,
  onReload,
}: {
  settings: Tagged<TravelSettings>;
  afterSave: boolean;
  onSaved(saved: Tagged<TravelSettings>): void;
  onStart(): void;
  onReload(): Promise<ApiError | null>;
}) {
  const [values, setValues] = useState<Record<TravelField, string>>(() => ({
    maxSpeedKmh: String(settings.value.maxSpeedKmh),
    minDistanceKm: String(settings.value.minDistanceKm),
    minSeconds: String(settings.value.minSeconds),
  }));
  const { error, setError, busy, setBusy, button: saveButton, reload } = useSaveState(onReload, afterSave);

  async function submit(e: Event) {
    e.preventDefault();
    onStart();
    setBusy(true);
    setError(null);
    // A field left empty takes its default.
    const body: NewTravelSettings = {};
    for (const { field } of TRAVEL_INPUTS) {
      if (values[field].trim() !== '') body[field] = Number(values[field]);
    }
    try {
      onSaved(await api.setTravel(body, settings.etag));
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit}>
      <div class="travel-fields">
        {TRAVEL_INPUTS.map(({ field, label, unit, help }) => {
          const { min, max } = TRAVEL_BOUNDS[field];
          return (
            <div key={field}>
              <label for={`travel-${field}`}>{label}</label>
              <input
                id={`travel-${field}`}
                type="number"
                inputMode="numeric"
                min={min}
                max={max}
                step={1}
                aria-describedby={`travel-${field}-help`}
                placeholder={String(TRAVEL_DEFAULTS[field])}
                value={values[field]}
                onInput={(e) => setValues({ ...values, [field]: e.currentTarget.value })}
              />
              <p id={`travel-${field}-help`} class="help">
                {help} A whole number from {count(min)} to {count(max)} {unit}; default{' '}
                {count(TRAVEL_DEFAULTS[field])} (left empty, the default applies).
              </p>
            </div>
          );
        })}
      </div>
      <SaveError error={error} what="travel settings" onReload={reload} />
      <BusyButton buttonRef={saveButton} class="primary" busy={busy}>
        Save travel settings
      </BusyButton>
    </form>
  );
}
