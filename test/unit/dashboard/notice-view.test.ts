import { describe, expect, test } from '@jest/globals';
import { noticeViews } from '../../../functions/lib/dashboard/notice-view.js';

// GET /v1/dashboard/notices shows what each notice said when it went out, whatever the cap is now.

describe('notice-view', () => {
  test('each notice shows the used figure, cap and sent time it was recorded with', () => {
    expect(
      noticeViews('2026-11', [
        { percent: 75, sentAt: '2026-11-20T10:00:01.000Z', used: 45, cap: 50 },
        { percent: 90, sentAt: '2026-11-20T10:00:02.000Z', used: 45, cap: 50 },
        { percent: 100, sentAt: '2026-11-20T11:00:00.000Z', used: 50, cap: 50 },
      ]),
    ).toEqual([
      { month: '2026-11', percent: 75, used: 45, cap: 50, sentAt: '2026-11-20T10:00:01.000Z' },
      { month: '2026-11', percent: 90, used: 45, cap: 50, sentAt: '2026-11-20T10:00:02.000Z' },
      { month: '2026-11', percent: 100, used: 50, cap: 50, sentAt: '2026-11-20T11:00:00.000Z' },
    ]);
  });

  test('a notice recorded before its figures were stored shows none (null), not figures made from a cap', () => {
    expect(noticeViews('2026-11', [{ percent: 75, sentAt: '2026-11-20T10:00:00.000Z' }])).toEqual([
      { month: '2026-11', percent: 75, used: null, cap: null, sentAt: '2026-11-20T10:00:00.000Z' },
    ]);
  });
});
