import type { UploadTicket } from '../api-types.js';

// The upload-URL flow's upload: a browser-form POST (multipart/form-data) straight to storage with
// every field of the ticket, then the file as `file` (S3 wants the file last). XMLHttpRequest,
// because fetch has no upload progress. Storage is another origin: the page's CSP lists it in
// connect-src and the bucket answers CORS for the dashboard's origin.

export class UploadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UploadError';
  }
}

export function uploadFile(
  ticket: UploadTicket,
  file: Blob,
  onProgress: (sent: number, total: number) => void,
): Promise<void> {
  const form = new FormData();
  for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value);
  form.append('file', file);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(ticket.method, ticket.uploadUrl);
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onProgress(e.loaded, e.total);
    });
    xhr.addEventListener('load', () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve();
      else
        reject(new UploadError(`Storage refused the upload: ${s3Message(xhr.responseText) ?? xhr.status}.`));
    });
    xhr.addEventListener('error', () =>
      reject(new UploadError('The upload failed: the connection was lost.')),
    );
    xhr.addEventListener('abort', () => reject(new UploadError('The upload was cancelled.')));
    xhr.send(form);
  });
}

/** The <Message> of an S3 XML error (EntityTooLarge, AccessDenied for an expired ticket, ...). */
function s3Message(xml: string): string | null {
  return /<Message>([^<]*)<\/Message>/.exec(xml)?.[1] ?? null;
}
