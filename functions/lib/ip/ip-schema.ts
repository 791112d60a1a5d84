import { apiCode } from '../http/validate.js';
import * as z from '../zod.js';
import { parseIp } from './parse-ip.js';

// Request fields holding an IP address. They fail with `invalid_ip` (docs/api.md: Errors), and the
// handler parses the accepted string again with parseIp: the contract stays a plain, publishable
// schema (OpenAPI shows a string) rather than one that transforms.

const isIp = (value: unknown): value is string => typeof value === 'string' && parseIp(value) !== null;

/** What a malformed address is called, after its field's name: `ip: not an IPv4 or IPv6 address`. */
export const NOT_AN_IP_MESSAGE = 'not an IPv4 or IPv6 address';

const NOT_AN_IP = { ...apiCode('invalid_ip'), error: NOT_AN_IP_MESSAGE };

/** One address: another type is `invalid_field` (the body's shape), a malformed string `invalid_ip`. */
export const IpAddressSchema = z.string().check(z.refine(isIp, NOT_AN_IP));

/**
 * An item of an IP batch: anything but an address, a string or not, is `invalid_ip` naming its
 * index (the batch fails whole). Published as a string, which is what it accepts.
 */
export const IpBatchItemSchema = z.custom<string>(isIp, NOT_AN_IP).check(z.meta({ type: 'string' }));
