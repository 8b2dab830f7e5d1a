import { describe, expect, it } from "@effect/vitest"

import { withoutEmailAddresses } from "../../src/domain/Subscriber.js"

describe("withoutEmailAddresses", () => {
  it("replaces the addresses a mail server's refusal quotes, and nothing else", () => {
    expect(withoutEmailAddresses("550 5.1.1 <erin+news@example.test>: Recipient address rejected")).toBe(
      "550 5.1.1 <<address>>: Recipient address rejected"
    )
    expect(withoutEmailAddresses("Can't send mail - all recipients were rejected: 550 a@b.c (x@y.z)")).toBe(
      "Can't send mail - all recipients were rejected: 550 <address> (<address>)"
    )
    expect(withoutEmailAddresses("451 4.3.0 Temporary failure, try again")).toBe(
      "451 4.3.0 Temporary failure, try again"
    )
  })
})
