import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api.js';
import { api } from '../api.js';
import type { ApiKey, CreatedKey, KeyType } from '../api-types.js';
import { BusyButton } from '../components/busy-button.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { CopyValue } from '../components/copy-button.js';
import { ErrorMessage, Loading, Status } from '../components/messages.js';
import { PageHeading } from '../components/page-heading.js';
import { ScrollRegion } from '../components/scroll-region.js';
import { dateTime } from '../format.js';
import { originsText, parseOrigins } from '../origins.js';
import { asApiError, useInFlight, useLoad } from '../use-load.js';

export function KeysPage() {
  const keys = useLoad(api.keys);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [said, setSaid] = useState('');

  return (
    <>
      <PageHeading>API keys</PageHeading>
      <p>
        Publishable keys go in web pages and work only from the origins you list; secret keys stay on your
        servers. A key is shown once, when it is created: only its hash is kept. Test keys answer every route
        from fixed test data, kept apart from your live data, and are never billed.
      </p>
      {created ? (
        <NewKey
          created={created}
          onDone={() => {
            setCreated(null);
            // The panel and its button go: the focus goes to the list, where the new key is.
            document.getElementById('keys-title')?.focus();
          }}
        />
      ) : (
        <CreateKeyForm
          onCreated={(key) => {
            setCreated(key);
            void keys.reload();
          }}
        />
      )}
      {said && <Status>{said}</Status>}

      <h2 id="keys-title" tabIndex={-1}>
        Your keys
      </h2>
      {keys.loading && !keys.data && <Loading what="keys" />}
      <ErrorMessage error={keys.error} />
      {keys.data && keys.data.length === 0 && <p>No keys yet.</p>}
      {keys.data && keys.data.length > 0 && (
        <ScrollRegion label="Your keys">
          <table>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Label</th>
                <th scope="col">Key</th>
                <th scope="col">Allowed origins</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.keyId} class={k.revoked ? 'revoked' : undefined}>
                  <td>
                    {k.type === 'publishable' ? 'Publishable' : 'Secret'}
                    {k.mode === 'test' && (
                      <>
                        {' '}
                        <span class="badge">test</span>
                      </>
                    )}
                  </td>
                  <td>{k.label ?? '—'}</td>
                  <td>
                    <code>{k.last4 ? `…${k.last4}` : k.keyId}</code>
                  </td>
                  <td>
                    {k.type === 'secret' ? (
                      'Any (server side)'
                    ) : (
                      <ul class="plain">
                        {k.origins.map((o) => (
                          <li key={o}>{o}</li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td>{dateTime(k.createdAt)}</td>
                  <td>{k.lastUsedDay ?? 'Never'}</td>
                  <td class="row-actions">
                    {k.revoked ? (
                      'Revoked'
                    ) : (
                      <>
                        {k.type === 'publishable' && (
                          <button type="button" class="small" onClick={() => setEditing(k)}>
                            Edit origins<span class="visually-hidden"> of key {keyName(k)}</span>
                          </button>
                        )}
                        <button type="button" class="small danger" onClick={() => setRevoking(k)}>
                          Revoke<span class="visually-hidden"> key {keyName(k)}</span>
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}

      {editing && (
        <EditOriginsDialog
          apiKey={editing}
          onClose={(saved) => {
            setEditing(null);
            if (saved) {
              setSaid(`Origins of key ${keyName(saved)} saved.`);
              void keys.reload();
            }
          }}
        />
      )}
      {revoking && (
        <RevokeDialog
          apiKey={revoking}
          onClose={(revoked) => {
            setRevoking(null);
            if (revoked) {
              // Shown revoked at once (its buttons go, so the focus goes to the list's heading).
              keys.set(
                (keys.data ?? []).map((k) => (k.keyId === revoking.keyId ? { ...k, revoked: true } : k)),
              );
              setSaid(`Key ${keyName(revoking)} revoked.`);
              void keys.reload();
            }
          }}
        />
      )}
    </>
  );
}

function keyName(k: Pick<ApiKey, 'label' | 'last4' | 'keyId'>): string {
  return k.label ? `${k.label} (…${k.last4 ?? ''})` : k.last4 ? `…${k.last4}` : k.keyId;
}

function CreateKeyForm({ onCreated }: { onCreated(key: CreatedKey): void }) {
  const [type, setType] = useState<KeyType>('publishable');
  const [label, setLabel] = useState('');
  const [test, setTest] = useState(false);
  const [origins, setOrigins] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const once = useInFlight();

  const submit = (e: Event) => {
    e.preventDefault();
    return once(async () => {
      setBusy(true);
      setError(null);
      try {
        const named = { ...(label.trim() ? { label: label.trim() } : {}), ...(test ? { test } : {}) };
        const key =
          type === 'publishable'
            ? await api.createKey({ type, origins: parseOrigins(origins), ...named })
            : await api.createKey({ type, ...named });
        setLabel('');
        setTest(false);
        setOrigins('');
        onCreated(key);
      } catch (err) {
        setError(asApiError(err));
      } finally {
        setBusy(false);
      }
    });
  };

  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <fieldset>
        <legend>Type</legend>
        <label class="choice">
          <input
            type="radio"
            name="key-type"
            value="publishable"
            checked={type === 'publishable'}
            onChange={() => setType('publishable')}
          />
          Publishable (for web pages)
        </label>
        <label class="choice">
          <input
            type="radio"
            name="key-type"
            value="secret"
            checked={type === 'secret'}
            onChange={() => setType('secret')}
          />
          Secret (for servers)
        </label>
      </fieldset>
      <label for="key-label">Label (optional)</label>
      <input id="key-label" value={label} maxLength={60} onInput={(e) => setLabel(e.currentTarget.value)} />
      <label class="choice">
        <input
          type="checkbox"
          checked={test}
          aria-describedby="key-test-help"
          onChange={(e) => setTest(e.currentTarget.checked)}
        />
        Test key
      </label>
      <p id="key-test-help" class="help">
        Fixed answers for the documentation addresses and example e-mails, never billed.
      </p>
      {type === 'publishable' && (
        <>
          <label for="key-origins">Allowed origins</label>
          <textarea
            id="key-origins"
            rows={3}
            required
            aria-describedby="key-origins-help"
            placeholder="https://shop.example.com"
            value={origins}
            onInput={(e) => setOrigins(e.currentTarget.value)}
          />
          <p id="key-origins-help" class="help">
            One per line, such as https://shop.example.com; http://localhost:* allows any local port.
          </p>
        </>
      )}
      <ErrorMessage error={error} />
      <BusyButton class="primary" busy={busy}>
        Create {test ? `test ${type}` : type} key
      </BusyButton>
    </form>
  );
}

function NewKey({ created, onDone }: { created: CreatedKey; onDone(): void }) {
  // It replaces the form whose button had the focus: the focus goes to its heading.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="card new-key" aria-labelledby="new-key-title">
      <h2 id="new-key-title" ref={heading} tabIndex={-1}>
        Your new {created.mode === 'test' ? `test ${created.type}` : created.type} key
      </h2>
      <p class="warning" role="alert">
        Copy this key now: it is shown only once and cannot be shown again.
      </p>
      <p>
        <CopyValue text={created.key} label="the new key" />
      </p>
      {created.origins.length > 0 && <p>Allowed origins: {created.origins.join(', ')}</p>}
      <button type="button" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}

function EditOriginsDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose(saved: ApiKey | null): void }) {
  const [text, setText] = useState(originsText(apiKey.origins));
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  async function save() {
    setBusy(true);
    setError(null);
    try {
      onClose(await api.setOrigins(apiKey.keyId, parseOrigins(text)));
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog
      title={`Allowed origins of key ${keyName(apiKey)}`}
      confirmLabel="Save origins"
      busy={busy}
      onConfirm={save}
      onCancel={() => onClose(null)}
    >
      <label for="edit-origins">Allowed origins, one per line</label>
      <textarea id="edit-origins" rows={5} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      <ErrorMessage error={error} />
    </ConfirmDialog>
  );
}

function RevokeDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose(revoked: boolean): void }) {
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  async function revoke() {
    setBusy(true);
    try {
      await api.revokeKey(apiKey.keyId);
      onClose(true);
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog
      title={`Revoke key ${keyName(apiKey)}?`}
      confirmLabel="Revoke key"
      danger
      fallbackFocusId="keys-title"
      busy={busy}
      onConfirm={revoke}
      onCancel={() => onClose(false)}
    >
      <p>
        Calls with this key are refused within seconds. This cannot be undone: create a new key to replace it.
      </p>
      <ErrorMessage error={error} />
    </ConfirmDialog>
  );
}
