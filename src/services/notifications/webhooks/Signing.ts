/**
 * Signatures of `generic` deliveries. Two schemes over the same exact body bytes:
 *
 * - `X-Service-Signature: sha256=<hex>` (docs/notifications.md, "Signing"): HMAC-SHA256 of the body keyed
 *   with the webhook's secret as given, i.e. the UTF-8 bytes of its 64 hex characters (the same
 *   convention as GitHub's `X-Hub-Signature-256`).
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`):
 *   HMAC-SHA256 of `{id}.{timestamp}.{body}`. That specification keys the HMAC with the raw
 *   bytes of the secret, so here the key is the 32 bytes the hex secret encodes; a receiver using
 *   a Standard Webhooks library passes the secret as `whsec_` + base64 of those bytes
 *   (`standardWebhooksSecret`). The timestamp lets receivers reject replays.
 */
import { createHmac, randomBytes } from "node:crypto"

/** A new webhook secret: 32 random bytes, hex-encoded (docs/notifications.md, "Signing"). */
export const generateSecret = (): string => randomBytes(32).toString("hex")

/** The value of `X-Service-Signature` for `body`. */
export const serviceSignature = (secret: string, body: string): string =>
  `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`

/** The Standard Webhooks signature (`v1,<base64>`) with the raw key bytes. */
export const standardWebhookSignature = (key: Uint8Array, id: string, timestamp: number, body: string): string =>
  `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64")}`

/** The key bytes of a webhook secret for the Standard Webhooks scheme. */
export const standardWebhooksKey = (secret: string): Uint8Array => Buffer.from(secret, "hex")

/** The webhook secret in the `whsec_<base64>` form that Standard Webhooks libraries accept. */
export const standardWebhooksSecret = (secret: string): string =>
  `whsec_${Buffer.from(secret, "hex").toString("base64")}`
