import type { AnnounceDeps } from '../../../../functions/lib/webhooks/announce.js';
import type { DeliveryDeps } from '../../../../functions/lib/webhooks/delivery.js';
import type { WebhookEndpoint } from '../../../../functions/lib/webhooks/endpoints.js';
import type { Post, PostResult } from '../../../../functions/lib/webhooks/ports.js';
import { MemoryQueue, MemoryWebhookStore, TestClock } from './memory-store.js';

// The webhook steps wired to memory: the store, the queue, a hand-moved clock, a POST that answers
// from a script and records what it was asked, and the disabled notices.

export interface PostCall {
  url: string;
  body: string;
  headers: Readonly<Record<string, string>>;
}

export class StubPost {
  readonly calls: PostCall[] = [];
  private readonly script: (PostResult | (() => Promise<PostResult>))[] = [];
  constructor(private fallback: PostResult = { status: 200, latencyMs: 12, response: 'ok' }) {}

  /** The next answers, in order; after them the fallback. */
  answer(...results: PostResult[]): void {
    this.script.push(...results);
  }
  /** The next answer comes when `answer` resolves (a receiver that takes its time). */
  next(answer: () => Promise<PostResult>): void {
    this.script.push(answer);
  }
  /** The answer of every call past the script. */
  always(result: PostResult): void {
    this.fallback = result;
  }

  readonly post: Post = async (url, body, headers) => {
    this.calls.push({ url: url.href, body, headers: { ...headers } });
    const next = this.script.shift() ?? this.fallback;
    return typeof next === 'function' ? next() : next;
  };
}

export interface Notice {
  accountId: string;
  endpoint: WebhookEndpoint;
  reason: string;
}

export const LIVE = { allowLoopback: false };

export function webhookWorld(start = '2026-11-28T10:00:00.000Z') {
  const clock = new TestClock(start);
  const store = new MemoryWebhookStore();
  const queue = new MemoryQueue();
  const post = new StubPost();
  const notices: Notice[] = [];
  const delivery: DeliveryDeps = {
    store,
    post: post.post,
    policy: LIVE,
    queue,
    now: clock.now,
    disabled: async (accountId, endpoint, reason) => {
      notices.push({ accountId, endpoint, reason });
    },
  };
  const announcing: AnnounceDeps = { store, queue, now: clock.now };
  return { clock, store, queue, post, notices, delivery, announcing };
}
