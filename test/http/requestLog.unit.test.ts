import { describe, expect, it } from "@effect/vitest"

import { redactUrl } from "../../src/http/RequestLog.js"

const token = "q3Xr9vLw2mT8kP0aZc7yB4nE6sG1hJ5uD_-fVxWoRiM"
const apiKey = "svc_AbCdEfGhIjKlMnOpQrStUvWxYz012345"

describe("redactUrl", () => {
  it("redacts the token of a confirmation link, on the page and on the API", () => {
    expect(redactUrl(`/subscribe/verify/${token}`)).toBe("/subscribe/verify/REDACTED")
    expect(redactUrl(`/api/v1/subscribe/verify/${token}`)).toBe("/api/v1/subscribe/verify/REDACTED")
    // Whatever follows `verify`, however short, and however the link was mangled.
    expect(redactUrl("/subscribe/verify/abc?x=1")).toBe("/subscribe/verify/REDACTED?x=1")
    expect(redactUrl(`/subscribe/verify/${token}/extra`)).toBe("/subscribe/verify/REDACTED/extra")
    expect(redactUrl(`/subscribe/verfy/${token}`)).toBe("/subscribe/verfy/REDACTED")
    expect(redactUrl("/subscribe/verify")).toBe("/subscribe/verify")
  })

  it("redacts the address and token of unsubscribe links", () => {
    expect(redactUrl(`/unsubscribe?email=reader%40example.com&token=${token}`)).toBe(
      "/unsubscribe?email=REDACTED&token=REDACTED"
    )
    expect(redactUrl(`/api/v1/unsubscribe/one-click?email=reader@example.com&token=short`)).toBe(
      "/api/v1/unsubscribe/one-click?email=REDACTED&token=REDACTED"
    )
  })

  it("redacts keys, secrets and passwords by parameter name, and addresses and API keys anywhere", () => {
    expect(redactUrl("/x?api_key=1&Secret=2&password=3&access_token=4&page=2")).toBe(
      "/x?api_key=REDACTED&Secret=REDACTED&password=REDACTED&access_token=REDACTED&page=2"
    )
    expect(redactUrl(`/api/v1/components?auth=${apiKey}`)).toBe("/api/v1/components?auth=REDACTED")
    expect(redactUrl(`/api/v1/${apiKey}/components`)).toBe("/api/v1/REDACTED/components")
    expect(redactUrl(`/x?${apiKey}`)).toBe("/x?REDACTED")
    expect(redactUrl("/people/reader%40example.com?who=a+b%40example.com")).toBe("/people/REDACTED?who=REDACTED")
    expect(redactUrl("http://user:pass@host.example/path?q=1")).toBe("http://REDACTED@host.example/path?q=1")
  })

  it("keeps what holds no secret: routes, ids, pages and file names", () => {
    for (
      const url of [
        "/",
        "/history?page=3",
        "/api/v1/status",
        "/incidents/6f1c1f9e-3b7a-4c1e-9d35-0b8f0f1e2a3b",
        "/badge.svg?component=6f1c1f9e-3b7a-4c1e-9d35-0b8f0f1e2a3b",
        "/admin/assets/app-3b7a4c1e9d350b8f0f1e2a3b6f1c1f9e.js",
        "/api/v1/admin/monitors?limit=50&offset=100",
        "/broken%zz?%zz=1"
      ]
    ) expect(redactUrl(url)).toBe(url)
  })

  it("redacts long token-like segments and values wherever they are", () => {
    expect(redactUrl(`/somewhere/${token}`)).toBe("/somewhere/REDACTED")
    expect(redactUrl(`/x?next=${token}`)).toBe("/x?next=REDACTED")
  })
})
