import { createHmac, randomBytes } from "node:crypto"

import { describe, expect, it } from "@effect/vitest"

import {
  generateSecret,
  serviceSignature,
  standardWebhookSignature,
  standardWebhooksKey,
  standardWebhooksSecret
} from "../../../src/services/notifications/webhooks/Signing.js"

describe("webhook signing", () => {
  it("matches GitHub's published X-Hub-Signature-256 test vector", () => {
    expect(serviceSignature("It's a Secret to Everybody", "Hello, World!")).toBe(
      "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    )
  })

  it("matches the Standard Webhooks specification's example signature", () => {
    // From the Standard Webhooks spec: secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw.
    const key = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64")
    expect(standardWebhookSignature(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, "{\"test\": 2432232314}")).toBe(
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )
  })

  it("agrees with node:crypto on random bodies and secrets", () => {
    for (let i = 0; i < 50; i++) {
      const secret = generateSecret()
      const body = randomBytes(1 + (i * 37) % 900).toString("base64") + "é😀"
      expect(serviceSignature(secret, body)).toBe(
        `sha256=${createHmac("sha256", Buffer.from(secret, "utf8")).update(Buffer.from(body, "utf8")).digest("hex")}`
      )
      const timestamp = 1_700_000_000 + i
      const expected = createHmac("sha256", Buffer.from(secret, "hex"))
        .update(Buffer.from(`msg_${i}.${timestamp}.${body}`, "utf8"))
        .digest("base64")
      expect(standardWebhookSignature(standardWebhooksKey(secret), `msg_${i}`, timestamp, body)).toBe(`v1,${expected}`)
    }
  })

  it("generates 32-byte secrets as 64 lowercase hex characters, and their whsec_ form", () => {
    const secrets = new Set(Array.from({ length: 20 }, generateSecret))
    expect(secrets.size).toBe(20)
    for (const secret of secrets) {
      expect(secret).toMatch(/^[0-9a-f]{64}$/)
      const whsec = standardWebhooksSecret(secret)
      expect(Buffer.from(whsec.replace(/^whsec_/, ""), "base64").toString("hex")).toBe(secret)
    }
  })
})
