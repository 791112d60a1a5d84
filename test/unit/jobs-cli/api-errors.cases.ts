import { describe, expect, test } from '@jest/globals';
import { NetintelError } from '@netintel/client';
import { CliError } from '../../../scripts/cli/cli-error.js';
import { cliError } from '../../../scripts/jobs/api-client.js';

// How `npm run jobs` reports the client's failures: a server that is not there, one that never
// answers, an answer that is not the API's JSON, and the API's own refusals.

const URL = 'http://localhost:8787';

function reported(error: NetintelError): CliError {
  const mapped = cliError(URL, error);
  expect(mapped).toBeInstanceOf(CliError);
  return mapped as CliError;
}

describe('api-errors', () => {
  test('no connection: "Cannot reach", with the way out, exit 1', () => {
    const error = reported(
      new NetintelError(0, 'network_error', 'Cannot reach the API at http://localhost:8787'),
    );
    expect(error.message).toBe(
      'Cannot reach the API at http://localhost:8787 — is `npm start` running? Set NETINTEL_URL to use another address.',
    );
    expect(error.exitCode).toBe(1);
  });

  test('a server that takes the connection and never answers is a timeout, not "Cannot reach"', () => {
    const error = reported(
      new NetintelError(0, 'timeout', 'No answer from http://localhost:8787 within 30000 ms'),
    );
    expect(error.message).toBe(
      'No answer from http://localhost:8787 within 30000 ms. Try again later, or set NETINTEL_URL to use another address.',
    );
    expect(error.exitCode).toBe(1);
  });

  test("an answer that is not the API's JSON is the client's own failure: exit 1, no HTTP status", () => {
    const error = reported(new NetintelError(0, 'invalid_response', 'The answer (HTTP 200) is not JSON'));
    expect(error).toMatchObject({
      exitCode: 1,
      message: 'The answer (HTTP 200) is not JSON',
      status: undefined,
    });
  });

  test("the API's refusals keep their status and code: 4xx exit 2, 5xx exit 1", () => {
    expect(reported(new NetintelError(400, 'empty_job', 'No address.'))).toMatchObject({
      exitCode: 2,
      status: 400,
      code: 'empty_job',
      message: 'The API answered 400 empty_job: No address.',
    });
    expect(reported(new NetintelError(503, 'service_unavailable', 'Later.'))).toMatchObject({ exitCode: 1 });
  });

  test('anything else is passed on as it is', () => {
    const other = new Error('disk full');
    expect(cliError(URL, other)).toBe(other);
  });
});
