import { describe, expect, test } from '@jest/globals';
import { parseJobMessage } from '../../../functions/lib/jobs/job-message.js';
import { assembleResults, chunksToRequeue } from '../../../functions/lib/jobs/job-results.js';
import { resultsHeader } from '../../../functions/lib/jobs/results-csv.js';

describe('job-results', () => {
  describe('job results assembly', () => {
    test('the results file lists rows in submission order, whatever order the chunks finished in', () => {
      const { body } = assembleResults({ total: 3 }, [
        { lines: [[2, 'c\r\n']], counts: {} },
        {
          lines: [
            [0, 'a\r\n'],
            [1, 'b\r\n'],
          ],
          counts: {},
        },
      ]);
      expect(body).toBe(`${resultsHeader()}a\r\nb\r\nc\r\n`);
    });

    test('the summary counts are the sums of the chunk counts of the same files', () => {
      const { counts } = assembleResults({ total: 2 }, [
        { lines: [[0, 'a\r\n']], counts: { accept: 1 } },
        { lines: [[1, 'b\r\n']], counts: { accept: 1, reject: 0 } },
      ]);
      expect(counts.accept).toBe(2);
      expect(counts.review).toBe(0);
    });

    test('a restart queues the chunks not yet counted, or chunk 0 when all were counted', () => {
      expect(chunksToRequeue({ chunkCount: 3, doneChunks: [1] })).toEqual([0, 2]);
      expect(chunksToRequeue({ chunkCount: 2, doneChunks: [0, 1] })).toEqual([0]);
    });
  });

  describe('job queue message', () => {
    test('a job message is parsed; anything else is refused', () => {
      expect(parseJobMessage('{"jobId":"j","chunk":2}')).toEqual({ jobId: 'j', chunk: 2 });
      for (const body of ['not json', '{}', '{"jobId":"j","chunk":-1}', '{"jobId":"j","chunk":"2"}'])
        expect(() => parseJobMessage(body)).toThrow();
    });
  });
});
