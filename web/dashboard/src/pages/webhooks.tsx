import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, api } from '../api.js';
import type {
  WebhookAttempt,
  WebhookDeliveries,
  WebhookEndpoint,
  WebhookEventType,
  WebhookWithSecret,
} from '../api-types.js';
import { BusyButton } from '../components/busy-button.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { CopyValue } from '../components/copy-button.js';
import { ErrorMessage, Loading, Status } from '../components/messages.js';
import { PageHeading } from '../components/page-heading.js';
import { ScrollRegion } from '../components/scroll-region.js';
import { count, dateTime, dateTimeSeconds } from '../format.js';
import { asApiError, type Loaded, useInFlight, useLoad } from '../use-load.js';

// The account's webhook endpoints (docs/webhooks.md), managed with the session in place of the
// secret key, as the Rules page manages the account's rules: add one (its signing secret is shown
// this once), send it a test event, read its delivery log and redeliver an event, rotate its secret
// (shown once too), disable or enable it, delete it. Managing webhooks is not billed.

/**
 * What each event announces (docs/webhooks.md). A Record over the API's event types: a new type
 * fails the type check until it is named here, and the form offers every one.
 */
const EVENT_TEXT: Readonly<Record<WebhookEventType, string>> = {
  'job.completed': "A list job's results are ready.",
  'job.failed': 'A list job failed (its unprocessed credits are returned).',
  'usage.threshold': "The month's usage crossed 75, 90 or 100% of the monthly cap.",
};

const EVENT_TYPES = Object.keys(EVENT_TEXT) as WebhookEventType[];

/** How long the current secret keeps signing beside a new one, in seconds (the API's default first). */
const OVERLAPS: readonly { seconds: number; label: string }[] = [
  { seconds: 86_400, label: '24 hours (the default)' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 0, label: 'Stop it now' },
];

/** After an event is queued, the delivery log is read again after these delays until the attempt shows. */
const WATCH_DELAYS_MS = [250, 1000, 2000, 4000, 8000];

/** Characters of a receiver's answer shown in the log's table; the rest behind "Whole answer". */
const EXCERPT_CHARS = 80;

export function WebhooksPage() {
  const endpoints = useLoad(api.webhooks);
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);
  const [said, setSaid] = useState('');
  const list = endpoints.data ?? [];

  return (
    <>
      <PageHeading>Webhooks</PageHeading>
      <p>
        Instead of polling, give the API an HTTPS endpoint: it POSTs a signed JSON event there when a list job
        ends and when your usage crosses 75, 90 or 100% of the monthly cap. A failed delivery is tried again
        for 24 hours, then the endpoint is disabled. Managing webhooks and delivering events are not billed.
      </p>
      {created ? (
        <SecretOnce
          titleId="created-secret-title"
          heading={
            <h2 id="created-secret-title" tabIndex={-1}>
              Signing secret of your new endpoint
            </h2>
          }
          webhook={created}
          onDone={() => {
            setCreated(null);
            // The panel and its button go: the focus goes to the list, where the new endpoint is.
            document.getElementById('endpoints-title')?.focus();
          }}
        >
          <p>
            Endpoint <code class="wrap">{created.url}</code> receives {created.events.join(', ')}.
          </p>
        </SecretOnce>
      ) : (
        <AddWebhookForm
          onCreated={(webhook) => {
            setSaid('');
            setCreated(webhook);
            void endpoints.reload();
          }}
        />
      )}
      {said && <Status>{said}</Status>}

      <h2 id="endpoints-title" tabIndex={-1}>
        Your endpoints
      </h2>
      {endpoints.loading && !endpoints.data && <Loading what="webhook endpoints" />}
      <ErrorMessage error={endpoints.error} />
      {endpoints.data && list.length === 0 && <p>No endpoints yet.</p>}
      {list.map((w) => (
        <EndpointCard
          key={w.id}
          endpoint={w}
          onChanged={(changed) => endpoints.set(list.map((x) => (x.id === changed.id ? changed : x)))}
          onDeleted={() => {
            endpoints.set(list.filter((x) => x.id !== w.id));
            setSaid(`Endpoint ${w.url} deleted.`);
          }}
        />
      ))}
    </>
  );
}

// ---------------------------------------------------------------------------------------------
// Adding an endpoint

function AddWebhookForm({ onCreated }: { onCreated(webhook: WebhookWithSecret): void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>(() => [...EVENT_TYPES]);
  const [description, setDescription] = useState('');
  const [error, setError] = useState<ApiError | string | null>(null);
  const [busy, setBusy] = useState(false);
  const once = useInFlight();

  const submit = (e: Event) => {
    e.preventDefault();
    if (events.length === 0) {
      setError('Choose at least one event for the endpoint to receive.');
      return;
    }
    return once(async () => {
      setBusy(true);
      setError(null);
      try {
        const note = description.trim();
        const webhook = await api.createWebhook({
          url: url.trim(),
          events,
          ...(note ? { description: note } : {}),
        });
        setUrl('');
        setDescription('');
        setEvents([...EVENT_TYPES]);
        onCreated(webhook);
      } catch (err) {
        setError(asApiError(err));
      } finally {
        setBusy(false);
      }
    });
  };

  const toggle = (type: WebhookEventType, on: boolean) =>
    setEvents(EVENT_TYPES.filter((t) => (t === type ? on : events.includes(t))));

  return (
    <form class="card" onSubmit={submit} aria-labelledby="add-webhook-title">
      <h2 id="add-webhook-title">Add an endpoint</h2>
      <label for="webhook-url">Endpoint URL</label>
      <input
        id="webhook-url"
        type="url"
        required
        autocomplete="off"
        autocapitalize="off"
        spellcheck={false}
        aria-describedby="webhook-url-help"
        placeholder="https://hooks.example.com/netintel"
        value={url}
        onInput={(e) => setUrl(e.currentTarget.value)}
      />
      <p id="webhook-url-help" class="help">
        Where events are POSTed: https only, on a public host (never a private, loopback or link-local
        address). Answer with any 2xx once the event is stored; redirects are not followed.
      </p>
      <fieldset aria-describedby="webhook-events-help">
        <legend>Events</legend>
        {EVENT_TYPES.map((type) => (
          <label class="choice" key={type}>
            <input
              type="checkbox"
              name="webhook-events"
              value={type}
              checked={events.includes(type)}
              onChange={(e) => toggle(type, e.currentTarget.checked)}
            />
            <span>
              <code>{type}</code> <span class="help">{EVENT_TEXT[type]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <p id="webhook-events-help" class="help">
        At least one. A test event (webhook.test) can be sent to any endpoint.
      </p>
      <label for="webhook-description">Description (optional)</label>
      <input
        id="webhook-description"
        maxLength={200}
        value={description}
        onInput={(e) => setDescription(e.currentTarget.value)}
      />
      <ErrorMessage error={error} />
      <BusyButton class="primary" busy={busy}>
        Add endpoint
      </BusyButton>
    </form>
  );
}

/**
 * A signing secret, shown the once the API answers it (at creation and at a rotation): its copy
 * button, and the warning, announced at once, that it will not be shown again.
 */
function SecretOnce({
  titleId,
  heading,
  webhook,
  onDone,
  children,
}: {
  titleId: string;
  heading: ComponentChildren;
  webhook: WebhookWithSecret;
  onDone(): void;
  children?: ComponentChildren;
}) {
  // It replaces what had the focus (the form's button, the dialog): the focus goes to its heading.
  useEffect(() => document.getElementById(titleId)?.focus(), [titleId]);
  return (
    <section class="card new-key" aria-labelledby={titleId}>
      {heading}
      <p class="warning" role="alert">
        Copy this signing secret now: it will not be shown again.
      </p>
      <p>
        <CopyValue text={webhook.secret} label={`the signing secret of ${webhook.url}`} />
      </p>
      {children}
      <p class="help">
        Keep it with your receiver: each delivery's Netintel-Signature header is an HMAC-SHA256 of its
        timestamp and body under this secret (docs/webhooks.md shows how to verify it).
      </p>
      <button type="button" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}

// ---------------------------------------------------------------------------------------------
// One endpoint

function EndpointCard({
  endpoint: w,
  onChanged,
  onDeleted,
}: {
  endpoint: WebhookEndpoint;
  onChanged(endpoint: WebhookEndpoint): void;
  onDeleted(): void;
}) {
  const log = useLoad(() => api.webhookDeliveries(w.id));
  const [said, setSaid] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [rotated, setRotated] = useState<WebhookWithSecret | null>(null);
  const rotateButton = useRef<HTMLButtonElement>(null);
  // Each queued event bumps it: the log is read again until the new attempt shows.
  const [queued, setQueued] = useState(0);
  const slug = w.id.replace(/[^A-Za-z0-9_-]/g, '-');
  const titleId = `webhook-${slug}`;
  const enabled = w.status === 'enabled';

  useWatchLog(w.id, log, queued);

  /** Runs one change of the endpoint: its message on success, the API's on a refusal. */
  async function act(change: () => Promise<string>) {
    setBusy(true);
    setError(null);
    setSaid('');
    try {
      setSaid(await change());
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  }

  const sendTest = () =>
    act(async () => {
      const event = await api.testWebhook(w.id);
      setQueued((n) => n + 1);
      return `Test event ${event.eventId} queued: its attempt appears under Recent deliveries.`;
    });

  const redeliver = (a: WebhookAttempt) =>
    act(async () => {
      const event = await api.redeliverWebhook(w.id, a.eventId);
      setQueued((n) => n + 1);
      return `Event ${event.eventId} queued again: its attempt appears under Recent deliveries.`;
    });

  const toggle = () =>
    act(async () => {
      const changed = await api.updateWebhook(w.id, { enabled: !enabled });
      onChanged(changed);
      return changed.status === 'enabled'
        ? 'Endpoint enabled: events are delivered to it again. Redeliver what it missed from its deliveries.'
        : 'Endpoint disabled: no events are delivered to it until you enable it again.';
    });

  async function rotate(overlapSeconds: number) {
    setBusy(true);
    setError(null);
    setSaid('');
    try {
      const answer = await api.rotateWebhookSecret(w.id, { overlapSeconds });
      const { secret: _shownOnce, ...endpoint } = answer;
      setRotated(answer);
      onChanged(endpoint);
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
      setRotating(false);
    }
  }

  async function remove() {
    setBusy(true);
    setError(null);
    try {
      await api.deleteWebhook(w.id);
      setDeleting(false);
      onDeleted();
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
      setDeleting(false);
    }
  }

  return (
    <section class="card webhook" aria-labelledby={titleId}>
      <h3 id={titleId} class="webhook-url">
        {w.url}
      </h3>
      <p>
        <span class={`badge webhook-${w.status}`}>{enabled ? 'Enabled' : 'Disabled'}</span>
      </p>
      {!enabled && (
        <p class="reason">
          Disabled{w.disabledAt ? ` ${dateTime(w.disabledAt)}` : ''}
          {w.disabledReason ? `: ${w.disabledReason}.` : '.'}{' '}
          {w.disabledReason !== 'disabled by the account' &&
            'Once the receiver works again, enable the endpoint and redeliver what it missed. '}
          Test events and redeliveries wait until it is enabled.
        </p>
      )}
      <dl class="facts">
        <dt>Events</dt>
        <dd>
          <ul class="plain">
            {w.events.map((type) => (
              <li key={type}>
                <code>{type}</code>
              </li>
            ))}
          </ul>
        </dd>
        <dt>Description</dt>
        <dd>{w.description ?? '—'}</dd>
        <dt>Added</dt>
        <dd>{dateTime(w.createdAt)}</dd>
        {w.previousSecretExpiresAt && (
          <>
            <dt>Previous secret</dt>
            <dd>Still signs deliveries until {dateTime(w.previousSecretExpiresAt)}</dd>
          </>
        )}
      </dl>
      <div class="actions">
        <BusyButton type="button" onClick={sendTest} busy={busy} disabled={!enabled}>
          Send test event<span class="visually-hidden"> to {w.url}</span>
        </BusyButton>
        <button ref={rotateButton} type="button" onClick={() => setRotating(true)} disabled={busy}>
          Rotate secret<span class="visually-hidden"> of {w.url}</span>
        </button>
        <BusyButton type="button" onClick={toggle} busy={busy}>
          {enabled ? 'Disable' : 'Enable'}
          <span class="visually-hidden"> {w.url}</span>
        </BusyButton>
        <button type="button" class="danger" onClick={() => setDeleting(true)} disabled={busy}>
          Delete<span class="visually-hidden"> {w.url}</span>
        </button>
      </div>
      {said && <Status>{said}</Status>}
      <ErrorMessage error={error} />
      {rotated && (
        <SecretOnce
          titleId={`${titleId}-secret`}
          heading={
            <h4 id={`${titleId}-secret`} tabIndex={-1}>
              New signing secret
            </h4>
          }
          webhook={rotated}
          onDone={() => {
            setRotated(null);
            rotateButton.current?.focus();
          }}
        >
          <p>
            {rotated.previousSecretExpiresAt
              ? `The previous secret also signs deliveries until ${dateTime(rotated.previousSecretExpiresAt)}: update your receiver before then.`
              : 'The previous secret no longer signs deliveries: update your receiver now.'}
          </p>
        </SecretOnce>
      )}
      <DeliveryLog
        endpoint={w}
        log={log}
        titleId={`${titleId}-log`}
        busy={busy}
        onRedeliver={(a) => void redeliver(a)}
      />
      {rotating && (
        <RotateDialog url={w.url} busy={busy} onRotate={rotate} onCancel={() => setRotating(false)} />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete the endpoint ${w.url}?`}
          confirmLabel="Delete endpoint"
          danger
          fallbackFocusId="endpoints-title"
          busy={busy}
          onConfirm={remove}
          onCancel={() => setDeleting(false)}
        >
          <p>
            No event is delivered to it any more, and its deliveries not yet made are cancelled. This cannot
            be undone: add the endpoint again to receive events there (with a new secret).
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function RotateDialog({
  url,
  busy,
  onRotate,
  onCancel,
}: {
  url: string;
  busy: boolean;
  onRotate(overlapSeconds: number): void;
  onCancel(): void;
}) {
  const [overlap, setOverlap] = useState(OVERLAPS[0]!.seconds);
  return (
    <ConfirmDialog
      title={`Rotate the signing secret of ${url}?`}
      confirmLabel="Rotate secret"
      busy={busy}
      onConfirm={() => onRotate(overlap)}
      onCancel={onCancel}
    >
      <p>A new secret is made and shown once. Deliveries carry a signature under each secret still live.</p>
      <label for="rotate-overlap">The current secret keeps signing for</label>
      <select
        id="rotate-overlap"
        value={String(overlap)}
        onChange={(e) => setOverlap(Number(e.currentTarget.value))}
      >
        {OVERLAPS.map((o) => (
          <option key={o.seconds} value={String(o.seconds)}>
            {o.label}
          </option>
        ))}
      </select>
    </ConfirmDialog>
  );
}

/**
 * After an event is queued (`queued` went up), reads the log again after 1, 2, 4 and 8 seconds
 * until its newest attempt is another one: the attempt shows without a reload, in a few calls.
 */
function useWatchLog(id: string, log: Loaded<WebhookDeliveries>, queued: number) {
  const latest = useRef(log);
  latest.current = log;
  useEffect(() => {
    if (queued === 0) return;
    const newest = (page: WebhookDeliveries | null) => {
      const a = page?.deliveries[0];
      return a ? `${a.at}#${a.eventId}#${a.attempt}` : '';
    };
    const before = newest(latest.current.data);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const look = (round: number) => {
      if (round >= WATCH_DELAYS_MS.length) return;
      timer = setTimeout(async () => {
        try {
          const page = await api.webhookDeliveries(id);
          if (stopped) return;
          latest.current.set(page);
          if (newest(page) !== before) return;
        } catch {
          // The log's own Refresh button shows the error; watching just goes on.
        }
        if (!stopped) look(round + 1);
      }, WATCH_DELAYS_MS[round]);
    };
    look(0);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id, queued]);
}

// ---------------------------------------------------------------------------------------------
// The delivery log

const OUTCOME_TEXT: Readonly<Record<WebhookAttempt['outcome'], string>> = {
  succeeded: 'Succeeded',
  failed: 'Failed',
};

function DeliveryLog({
  endpoint: w,
  log,
  titleId,
  busy,
  onRedeliver,
}: {
  endpoint: WebhookEndpoint;
  log: Loaded<WebhookDeliveries>;
  titleId: string;
  busy: boolean;
  onRedeliver(attempt: WebhookAttempt): void;
}) {
  const [older, setOlder] = useState<{ error: ApiError | null; loading: boolean }>({
    error: null,
    loading: false,
  });
  const page = log.data;

  async function more() {
    if (!page?.nextCursor) return;
    setOlder({ error: null, loading: true });
    try {
      const next = await api.webhookDeliveries(w.id, page.nextCursor);
      log.set({ deliveries: [...page.deliveries, ...next.deliveries], nextCursor: next.nextCursor });
      setOlder({ error: null, loading: false });
    } catch (err) {
      setOlder({ error: asApiError(err), loading: false });
    }
  }

  return (
    <>
      <div class="log-head">
        <h4 id={titleId}>Recent deliveries</h4>
        <BusyButton type="button" class="small" onClick={() => void log.reload()} busy={log.loading}>
          Refresh<span class="visually-hidden"> the deliveries to {w.url}</span>
        </BusyButton>
      </div>
      {log.loading && !page && <Loading what="deliveries" />}
      <ErrorMessage error={log.error} />
      {page && page.deliveries.length === 0 && (
        <p class="help">No deliveries yet: send a test event to see one. Attempts are kept 30 days.</p>
      )}
      {page && page.deliveries.length > 0 && (
        <ScrollRegion label={`Recent deliveries to ${w.url}`}>
          <table class="deliveries" aria-labelledby={titleId}>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Attempt</th>
                <th scope="col">Outcome</th>
                <th scope="col">Status</th>
                <th scope="col">Latency</th>
                <th scope="col">Response</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {page.deliveries.map((a) => (
                <tr key={`${a.at}#${a.eventId}#${a.attempt}`}>
                  <td class="when">{dateTimeSeconds(a.at)}</td>
                  <td>
                    <code>{a.eventType}</code>
                    <br />
                    <code class="event-id">{a.eventId}</code>
                  </td>
                  <td class="num">{a.attempt}</td>
                  <td>
                    <span class={`badge outcome-${a.outcome}`}>{OUTCOME_TEXT[a.outcome]}</span>
                  </td>
                  <td class="num">{a.status ?? 'None'}</td>
                  <td class="num">{count(a.latencyMs)} ms</td>
                  <td class="excerpt">
                    <Excerpt text={a.response} />
                  </td>
                  <td class="row-actions">
                    <BusyButton
                      type="button"
                      class="small"
                      busy={busy}
                      disabled={w.status !== 'enabled'}
                      onClick={() => onRedeliver(a)}
                    >
                      Redeliver
                      <span class="visually-hidden">
                        {' '}
                        event {a.eventId} (attempt {a.attempt})
                      </span>
                    </BusyButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {page?.nextCursor && (
        <BusyButton type="button" class="small" onClick={more} busy={older.loading}>
          Show older attempts<span class="visually-hidden"> to {w.url}</span>
        </BusyButton>
      )}
      <ErrorMessage error={older.error} />
    </>
  );
}

/** The start of a receiver's answer (or why none came); a long one folds away. */
function Excerpt({ text }: { text: string }) {
  if (text === '') return <span class="help">Empty</span>;
  if (text.length <= EXCERPT_CHARS) return <code class="wrap">{text}</code>;
  return (
    <details>
      <summary>
        <code class="wrap">{text.slice(0, EXCERPT_CHARS)}…</code>
      </summary>
      <pre class="whole-answer">{text}</pre>
    </details>
  );
}
