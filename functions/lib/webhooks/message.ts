import * as z from '../zod.js';
import type { DeliveryMessage } from './ports.js';

const DeliveryMessageSchema = z.object({
  accountId: z.string().check(z.minLength(1), z.maxLength(128)),
  eventId: z.string().check(z.regex(/^evt_[A-Za-z0-9_-]{1,64}$/)),
  targetId: z.string().check(z.regex(/^(we_[A-Za-z0-9_-]{1,64}|job)$/)),
});

/** A deliveries-queue message; throws on anything else (the record fails and is dead-lettered in time). */
export function parseDeliveryMessage(body: string): DeliveryMessage {
  return DeliveryMessageSchema.parse(JSON.parse(body));
}
