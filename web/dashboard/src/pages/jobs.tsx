import { useEffect, useState } from 'preact/hooks';
import { api, resultsUrl } from '../api.js';
import type { Job } from '../api-types.js';
import { ErrorMessage, Loading, Status } from '../components/messages.js';
import { PageHeading } from '../components/page-heading.js';
import { ScrollRegion } from '../components/scroll-region.js';
import { SummaryChart } from '../components/summary-chart.js';
import { bytes, count, dateTime, percentOf, SEPARATOR_NAMES } from '../format.js';
import { FILENAME_MAX } from '../jobs/job-limits.js';
import type { ListPreview } from '../jobs/list-preview.js';
import { uploadFile } from '../jobs/upload.js';
import { href, type Page } from '../router.js';
import { asApiError, useInFlight, useLoad } from '../use-load.js';

/** How often a running job is asked for its progress. */
const POLL_MS = 2000;

/** Opens a page (here, not in router.ts, which stays free of the DOM for its tests without a browser). */
function navigate(page: Page, jobId?: string): void {
  location.hash = href(page, jobId);
}

export function JobsPage({ jobId }: { jobId?: string }) {
  const jobs = useLoad(api.jobs);
  const replace = (job: Job) => {
    if (jobs.data) jobs.set(jobs.data.map((j) => (j.id === job.id ? job : j)));
  };
  return (
    <>
      <PageHeading>List jobs</PageHeading>
      <NewJob
        onCreated={(job) => {
          jobs.set([job, ...(jobs.data ?? [])]);
          navigate('jobs', job.id);
        }}
      />
      {jobId && <JobDetail key={jobId} id={jobId} onUpdate={replace} />}
      <h2>Your jobs</h2>
      {jobs.loading && !jobs.data && <Loading what="jobs" />}
      <ErrorMessage error={jobs.error} />
      {jobs.data && jobs.data.length === 0 && <p>No jobs yet.</p>}
      {jobs.data && jobs.data.length > 0 && <JobTable jobs={jobs.data} />}
    </>
  );
}

type Step =
  | { step: 'idle' }
  | { step: 'reading'; file: File; read: number }
  | { step: 'refused'; file: File; message: string }
  | { step: 'preview'; file: File; preview: ListPreview }
  | { step: 'uploading'; file: File; preview: ListPreview; sent: number; total: number }
  | { step: 'creating'; file: File; preview: ListPreview };

function NewJob({ onCreated }: { onCreated(job: Job): void }) {
  const [state, setState] = useState<Step>({ step: 'idle' });
  const [error, setError] = useState<string | null>(null);
  const [over, setOver] = useState(false);
  const once = useInFlight();

  async function choose(file: File) {
    setError(null);
    setState({ step: 'reading', file, read: 0 });
    try {
      // The CSV reader (the API's own, with its parsing engine) loads only when a file is chosen.
      const { previewList } = await import('../jobs/list-preview.js');
      const preview = await previewList(file, (read) => setState({ step: 'reading', file, read }));
      setState({ step: 'preview', file, preview });
    } catch (err) {
      setState({ step: 'refused', file, message: (err as Error).message });
    }
  }

  const start = (file: File, preview: ListPreview) =>
    once(async () => {
      setError(null);
      try {
        setState({ step: 'uploading', file, preview, sent: 0, total: file.size });
        const ticket = await api.uploadTicket();
        await uploadFile(ticket, file, (sent, total) =>
          setState({ step: 'uploading', file, preview, sent, total }),
        );
        setState({ step: 'creating', file, preview });
        const job = await api.createJob(ticket.uploadId, file.name.slice(0, FILENAME_MAX));
        setState({ step: 'idle' });
        onCreated(job);
      } catch (err) {
        setError(asApiError(err).message);
        setState({ step: 'preview', file, preview });
      }
    });

  const busy = state.step === 'reading' || state.step === 'uploading' || state.step === 'creating';
  return (
    <section class="card" aria-labelledby="new-job-title">
      <h2 id="new-job-title">Check a list</h2>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: dropping is a shortcut; the file input inside is the keyboard's way in. */}
      <div
        class={over ? 'drop over' : 'drop'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          const file = e.dataTransfer?.files[0];
          if (file && !busy) void choose(file);
        }}
      >
        <label for="list-file">
          Drop a CSV file here (or a .csv.gz), or <span class="link">choose a file</span>
        </label>
        <input
          id="list-file"
          class="file-input"
          type="file"
          accept=".csv,.gz,text/csv,application/gzip"
          disabled={busy}
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) void choose(file);
            e.currentTarget.value = '';
          }}
        />
        <p class="help">
          Up to 100,000 addresses and 10 MB. The email column is the one headed email, e-mail, email address,
          email_address or mail, else the first.
        </p>
      </div>

      {state.step === 'reading' && (
        <Status>
          Reading {state.file.name}… {bytes(state.read)}
        </Status>
      )}
      {state.step === 'refused' && (
        <p class="message error" role="alert">
          {state.file.name} cannot be checked: {state.message}
        </p>
      )}
      {(state.step === 'preview' || state.step === 'uploading' || state.step === 'creating') && (
        <PreviewPanel file={state.file} preview={state.preview} />
      )}
      <ErrorMessage error={error} />
      {state.step === 'preview' && (
        <div class="actions">
          <button type="button" class="primary" onClick={() => start(state.file, state.preview)}>
            Upload and start the job ({count(state.preview.credits)} credits)
          </button>
          <button type="button" onClick={() => setState({ step: 'idle' })}>
            Cancel
          </button>
        </div>
      )}
      {state.step === 'uploading' && (
        <div class="progress">
          <label for="upload-progress">Uploading {state.file.name}</label>
          <progress id="upload-progress" max={Math.max(state.total, 1)} value={state.sent} />
          <Status>{uploadSaid(state.sent, state.total)}</Status>
        </div>
      )}
      {state.step === 'creating' && <Status>Uploaded; creating the job…</Status>}
    </section>
  );
}

/** Said in tenths, so a screen reader is not told every progress event. */
function uploadSaid(sent: number, total: number): string {
  const tenths = total > 0 ? Math.floor((sent / total) * 10) * 10 : 0;
  return `${tenths}% uploaded`;
}

function PreviewPanel({ file, preview }: { file: File; preview: ListPreview }) {
  const { header, emailColumn } = preview;
  const width = Math.max(header?.length ?? 0, ...preview.rows.map((r) => r.length), 1);
  const columns = Array.from({ length: width }, (_, i) => header?.[i] ?? `column ${i + 1}`);
  return (
    <div class="preview">
      <dl class="facts">
        <dt>File</dt>
        <dd>
          {file.name} ({bytes(file.size)}
          {preview.gzipped ? `, gzip: ${bytes(preview.csvBytes)} of CSV` : ''})
        </dd>
        <dt>Separator</dt>
        <dd>{SEPARATOR_NAMES[preview.separator] ?? preview.separator}</dd>
        <dt>Email column</dt>
        <dd>
          {header ? `“${header[emailColumn] ?? ''}” (column ${emailColumn + 1})` : 'column 1 (no header row)'}
        </dd>
        <dt>Rows with an address</dt>
        <dd>{count(preview.addresses)}</dd>
        <dt>Distinct addresses</dt>
        <dd>{count(preview.credits)}</dd>
      </dl>
      <ScrollRegion label="First rows of the file">
        <table>
          <caption>First rows</caption>
          <thead>
            <tr>
              {columns.map((c, i) => (
                <th scope="col" key={`${i}-${c}`} class={i === emailColumn ? 'email-col' : undefined}>
                  {c}
                  {i === emailColumn && <span class="visually-hidden"> (email column)</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {preview.rows.map((row, r) => (
              <tr key={r}>
                {columns.map((_, i) => (
                  <td key={i} class={i === emailColumn ? 'email-col' : undefined}>
                    {row[i] ?? ''}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <p class="cost">
        Cost: <strong>{count(preview.credits)} credits</strong>, one per distinct address, charged to this
        month when the job is created.
      </p>
    </div>
  );
}

function JobDetail({ id, onUpdate }: { id: string; onUpdate(job: Job): void }) {
  const job = useLoad(() => api.job(id));
  const data = job.data;
  const running = data?.status === 'queued' || data?.status === 'processing';

  useEffect(() => {
    if (data) onUpdate(data);
    if (!running) return;
    const timer = setTimeout(() => void job.reload(), POLL_MS);
    return () => clearTimeout(timer);
    // Polls again after each new answer, while the job runs.
  }, [data]);

  return (
    <section class="card" aria-labelledby="job-title">
      <h2 id="job-title">Job {data?.filename ?? id}</h2>
      {job.loading && !data && <Loading what="the job" />}
      <ErrorMessage error={job.error} />
      {data && (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <span class={`badge job-${data.status}`}>{data.status}</span>
            </dd>
            <dt>Rows</dt>
            <dd>{count(data.total)}</dd>
            <dt>Credits</dt>
            <dd>{count(data.credits)}</dd>
            <dt>Created</dt>
            <dd>{dateTime(data.createdAt)}</dd>
            {data.completedAt && (
              <>
                <dt>Completed</dt>
                <dd>{dateTime(data.completedAt)}</dd>
              </>
            )}
            <dt>Results kept until</dt>
            <dd>{dateTime(data.expiresAt)}</dd>
          </dl>
          <div class="progress">
            <label for="job-progress">Rows checked</label>
            <progress id="job-progress" max={Math.max(data.total, 1)} value={data.processed} />
            <Status>
              {count(data.processed)} of {count(data.total)} rows checked (
              {percentOf(data.processed, data.total)})
            </Status>
          </div>
          {data.status === 'failed' && (
            <p class="message error">
              The job failed; the credits of the rows it could not check were returned.
            </p>
          )}
          {data.summary && <SummaryChart summary={data.summary} total={data.total} />}
          {data.status === 'completed' && (
            <a class="button primary" href={resultsUrl(data.id)} download>
              Download results (CSV)
            </a>
          )}
        </>
      )}
    </section>
  );
}

function JobTable({ jobs }: { jobs: Job[] }) {
  return (
    <ScrollRegion label="Your jobs">
      <table>
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Rows
            </th>
            <th scope="col" class="num">
              Credits
            </th>
            <th scope="col" class="num">
              Checked
            </th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.id}>
              <td>{j.filename ?? j.id}</td>
              <td>
                <span class={`badge job-${j.status}`}>{j.status}</span>
              </td>
              <td class="num">{count(j.total)}</td>
              <td class="num">{count(j.credits)}</td>
              <td class="num">{percentOf(j.processed, j.total)}</td>
              <td>{dateTime(j.createdAt)}</td>
              <td class="row-actions">
                <a href={href('jobs', j.id)}>
                  View<span class="visually-hidden"> job {j.filename ?? j.id}</span>
                </a>
                {j.status === 'completed' && (
                  <a href={resultsUrl(j.id)} download>
                    Results<span class="visually-hidden"> of {j.filename ?? j.id}</span>
                  </a>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
