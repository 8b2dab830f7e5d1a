/**
 * What the dashboard shows of a refusal (src/web/admin/app/core/failure.ts): the server's one
 * sentence above the form, each issue's message by its field, and the same words for the typed
 * client's own check before sending.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Result, Schema } from "effect"

import { HttpApiDecodeError } from "../../../src/api/ApiErrors.js"
import { preconditionFailed } from "../../../src/api/Preconditions.js"
import { CreateComponent } from "../../../src/domain/Component.js"
import { BadRequest } from "../../../src/domain/Errors.js"
import { CreateMaintenance } from "../../../src/domain/Maintenance.js"
import { describeFailure } from "../../../src/web/admin/app/core/failure.js"

const failed = (error: unknown) => describeFailure(Cause.fail(error))

const checked = (schema: Schema.Top, input: unknown) => {
  const result = Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown>)(input, { errors: "all" })
  if (Result.isSuccess(result)) throw new Error("accepted")
  return failed(result.failure)
}

describe("failures in the dashboard", () => {
  it("a schema refusal: its sentence above the form, each message by its field", () => {
    const failure = failed(
      new HttpApiDecodeError({
        message: "2 fields are invalid: name is required; url must be an absolute http(s) URL.",
        issues: [
          { _tag: "Missing", path: ["name"], message: "is required" },
          { _tag: "Refinement", path: ["url"], message: "must be an absolute http(s) URL" }
        ]
      })
    )
    expect(failure).toEqual({
      kind: "other",
      message: "2 fields are invalid: name is required; url must be an absolute http(s) URL.",
      fields: { name: "Is required", url: "Must be an absolute http(s) URL" }
    })
  })

  it("an issue inside a field names the part by the field; an array element is the field's own", () => {
    const failure = failed(
      new HttpApiDecodeError({
        message: "2 fields are invalid: …",
        issues: [
          { _tag: "Refinement", path: ["recurrence", "interval"], message: "must be an integer from 1 to 52" },
          { _tag: "Type", path: ["componentIds", 2], message: "must be a string of at most 100 characters" }
        ]
      })
    )
    expect(failure.fields).toEqual({
      recurrence: "Interval must be an integer from 1 to 52",
      componentIds: "Must be a string of at most 100 characters"
    })
  })

  it("a rule's refusal reads like a schema's: one sentence above, each field's message by it", () => {
    const failure = failed(
      BadRequest.fromIssues([{ path: ["timeoutMs"], message: "must be shorter than the interval" }])
    )
    expect(failure).toEqual({
      kind: "other",
      message: "The request body is invalid: timeoutMs must be shorter than the interval.",
      fields: { timeoutMs: "Must be shorter than the interval" }
    })
    expect(failed(new BadRequest({ message: "The key has expired" })).message).toBe("The key has expired")
  })

  it("a save that lost a race (412 on If-Match) is its own kind, so an editor can offer the newer version", () => {
    const failure = failed(preconditionFailed("incidents"))
    expect(failure.kind).toBe("preconditionFailed")
    expect(failure.message).toMatch(/^Someone else changed this item since you opened it/)
    expect(failure.fields).toEqual({})
    expect(failed(new BadRequest({ message: "The key has expired" })).kind).toBe("other")
  })

  it("the typed client's own check says what the server would", () => {
    expect(checked(CreateComponent, { name: " ", status: "on_fire" })).toEqual({
      kind: "other",
      message: "Please correct the fields marked below.",
      fields: {
        name: "Must not be empty",
        status: "Must be one of operational, degraded, partial_outage, major_outage, maintenance"
      }
    })
    expect(
      checked(CreateMaintenance, { title: "t", scheduledStart: "tomorrow", scheduledEnd: "2030-01-01T00:00:00Z" })
        .fields
    )
      .toEqual({ scheduledStart: "Must be an ISO 8601 UTC timestamp such as 2030-01-31T09:00:00Z" })
    expect(checked(CreateComponent, null).message).toBe("Must be an object.")
  })
})
