/**
 * JSON Schemas of what the on-call vendors accept, written from their published documentation,
 * for the local receivers (OnCallReceivers) to validate deliveries with:
 *
 * - PagerDuty Events API v2, alert events (`POST /v2/enqueue`):
 *   https://developer.pagerduty.com/docs/events-api-v2/trigger-events/ and …/resolve-events/.
 *   `routing_key` (32 characters) and `event_action` always; `payload` with `summary` (at most
 *   1,024 characters), `source` and `severity` (`critical`, `error`, `warning`, `info`) for a
 *   trigger; `dedup_key` (at most 255 characters) for acknowledge and resolve. Optional
 *   `payload.timestamp` (ISO 8601), `component`, `group`, `class`, `custom_details` (an object),
 *   and `links` (`href`, `text`), `images` (`src`, `href`, `alt`), `client`, `client_url`.
 * - Opsgenie Alert API (https://docs.opsgenie.com/docs/alert-api): create alert
 *   (`POST /v2/alerts`), `message` required (at most 130 characters), `alias` (512), `description`
 *   (15,000), `responders`, `visibleTo`, `actions` (10), `tags` (20 of at most 50 characters),
 *   `details` (string values, 8,000 characters in all: checked by the receiver, JSON Schema has
 *   no word for it), `entity` (512), `source` (100), `priority` (`P1`–`P5`), `user` (100), `note`
 *   (25,000); close alert (`POST /v2/alerts/:identifier/close?identifierType=alias`) with optional
 *   `user`, `source` (100) and `note` (25,000).
 *
 * Unknown fields are refused (`additionalProperties: false`): the vendors ignore them, but a
 * field they do not know is a field the format got wrong.
 */

const iso8601 = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:?\\d{2})$"

export const pagerDutyEventSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "pagerduty-events-v2-alert-event",
  type: "object",
  required: ["routing_key", "event_action"],
  additionalProperties: false,
  properties: {
    routing_key: { type: "string", minLength: 32, maxLength: 32 },
    event_action: { type: "string", enum: ["trigger", "acknowledge", "resolve"] },
    dedup_key: { type: "string", minLength: 1, maxLength: 255 },
    payload: {
      type: "object",
      required: ["summary", "source", "severity"],
      additionalProperties: false,
      properties: {
        summary: { type: "string", minLength: 1, maxLength: 1024 },
        source: { type: "string", minLength: 1 },
        severity: { type: "string", enum: ["critical", "error", "warning", "info"] },
        timestamp: { type: "string", pattern: iso8601 },
        component: { type: "string" },
        group: { type: "string" },
        class: { type: "string" },
        custom_details: { type: "object" }
      }
    },
    images: {
      type: "array",
      items: {
        type: "object",
        required: ["src"],
        additionalProperties: false,
        properties: { src: { type: "string" }, href: { type: "string" }, alt: { type: "string" } }
      }
    },
    links: {
      type: "array",
      items: {
        type: "object",
        required: ["href"],
        additionalProperties: false,
        properties: { href: { type: "string" }, text: { type: "string" } }
      }
    },
    client: { type: "string" },
    client_url: { type: "string" }
  },
  allOf: [
    {
      if: { type: "object", properties: { event_action: { const: "trigger" } } },
      then: { required: ["payload"] },
      else: { required: ["dedup_key"] }
    }
  ]
} as const

const responder = {
  type: "object",
  required: ["type"],
  properties: {
    type: { type: "string", enum: ["team", "user", "escalation", "schedule"] },
    id: { type: "string" },
    name: { type: "string" },
    username: { type: "string" }
  }
} as const

export const opsgenieCreateAlertSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "opsgenie-create-alert",
  type: "object",
  required: ["message"],
  additionalProperties: false,
  properties: {
    message: { type: "string", minLength: 1, maxLength: 130 },
    alias: { type: "string", minLength: 1, maxLength: 512 },
    description: { type: "string", maxLength: 15000 },
    responders: { type: "array", items: responder },
    visibleTo: { type: "array", items: responder },
    actions: { type: "array", maxItems: 10, items: { type: "string", maxLength: 50 } },
    tags: { type: "array", maxItems: 20, items: { type: "string", minLength: 1, maxLength: 50 } },
    details: { type: "object", additionalProperties: { type: "string" } },
    entity: { type: "string", maxLength: 512 },
    source: { type: "string", maxLength: 100 },
    priority: { type: "string", enum: ["P1", "P2", "P3", "P4", "P5"] },
    user: { type: "string", maxLength: 100 },
    note: { type: "string", maxLength: 25000 }
  }
} as const

export const opsgenieCloseAlertSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "opsgenie-close-alert",
  type: "object",
  additionalProperties: false,
  properties: {
    user: { type: "string", maxLength: 100 },
    source: { type: "string", maxLength: 100 },
    note: { type: "string", maxLength: 25000 }
  }
} as const

/** Opsgenie's limit on `details`: keys and values together. */
export const opsgenieDetailsLimit = 8000
