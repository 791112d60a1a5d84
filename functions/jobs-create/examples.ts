import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with jobs-create (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  json: {
    summary: 'A list as JSON',
    headers: {
      'Idempotency-Key': 'signups-2026-11-24',
    },
    body: {
      emails: ['jane.doe@gmail.com', 'jane@gmial.com', 'someone@mailinator.com', 'jane.doe@gmail.com'],
      filename: 'signups.csv',
    },
    response: {
      id: '1f0c80b2-c823-418b-8e2e-1e3d19c0d855',
      status: 'queued',
      source: 'api',
      filename: 'signups.csv',
      total: 4,
      credits: 3,
      processed: 0,
      summary: null,
      createdAt: '2026-11-24T16:31:04.127Z',
      completedAt: null,
      expiresAt: '2026-12-01T16:31:04.127Z',
    },
  },
  form: {
    summary: 'A CSV file as a form upload (curl -F)',
    contentType: 'multipart/form-data',
    body: 'email\nsomeone@mailinator.com\njane.doe@gmail.com\n',
    response: {
      id: '7a41e9d3-0b6c-4f28-a5e1-93c2d8f4b617',
      status: 'queued',
      source: 'api',
      filename: 'list.csv',
      total: 2,
      credits: 2,
      processed: 0,
      summary: null,
      createdAt: '2026-11-24T16:31:48.266Z',
      completedAt: null,
      expiresAt: '2026-12-01T16:31:48.266Z',
    },
  },
  csv: {
    summary: 'A CSV file as the body (text/csv)',
    query: {
      filename: 'newsletter.csv',
    },
    contentType: 'text/csv',
    body: 'name,email\nJane Doe,jane.doe@gmail.com\nInfo desk,info@gmail.com\n',
    response: {
      id: 'd3c4d107-2c44-4e71-9b9e-219f0f5fb7de',
      status: 'queued',
      source: 'api',
      filename: 'newsletter.csv',
      total: 2,
      credits: 2,
      processed: 0,
      summary: null,
      createdAt: '2026-11-24T16:32:17.903Z',
      completedAt: null,
      expiresAt: '2026-12-01T16:32:17.903Z',
    },
  },
};
