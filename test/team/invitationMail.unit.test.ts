/** The invitation mail as a pure function: what it names, its link, and user text kept in its place. */
import { describe, expect, it } from "vitest"

import { invitationMail } from "../../src/services/notifications/mail/InvitationMail.js"

const base = {
  publicUrl: "https://status.example.test",
  organization: "Acme",
  email: "new@example.test",
  token: "A".repeat(43),
  role: "editor" as const,
  invitedBy: "Ada Lovelace",
  expiresAt: new Date("2030-01-04T10:30:00Z")
}

describe("invitation mail", () => {
  it("names the organization, the role and who invited, with the link's token in its fragment", () => {
    const mail = invitationMail(base)
    expect(mail.to).toBe("new@example.test")
    expect(mail.subject).toBe("Invitation to the status page team of Acme")
    expect(mail.text).toContain(
      "Ada Lovelace has invited you (new@example.test) to the team of the status page of Acme"
    )
    expect(mail.text).toContain("as editor")
    expect(mail.text).toContain(`https://status.example.test/admin/invitation#${base.token}`)
    expect(mail.text).toContain("until 2030-01-04 10:30 UTC")
    expect(mail.html).toContain(`href="https://status.example.test/admin/invitation#${base.token}"`)
    expect(invitationMail({ ...base, invitedBy: null }).text).toMatch(/^You have been invited \(new@example\.test\)/)
  })

  it("keeps user text in its place: one-line subject, escaped HTML", () => {
    const mail = invitationMail({
      ...base,
      organization: "Evil\r\nBcc: victim@example.test <script>",
      invitedBy: "<img src=x onerror=alert(1)>\nMallory"
    })
    expect(mail.subject).not.toMatch(/[\r\n]/)
    expect(mail.html).not.toContain("<script>")
    expect(mail.html).not.toContain("<img")
    expect(mail.html).toContain("&lt;script&gt;")
    expect(mail.text.split("\n")[0]).toContain("Mallory has invited you")
  })
})
