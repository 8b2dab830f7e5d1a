/**
 * Roles and the team in the dashboard, in a real browser against the full stack with real mail:
 * the owner invites an editor from the Team screen, the link of the mail opens the invitation
 * page, and the new editor lands in the dashboard with an editor's actions only; a viewer sees
 * no write action at all; the API's refusal to demote the last owner shows in the row.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"

import { adminEmail, adminPassword, signIn } from "../../support/Auth.js"
import {
  expectAccessible,
  expectFitsViewport,
  expectStatusMessage,
  itemCard,
  screenshot
} from "../../support/Browser.js"
import { useBrowserStackWithSmtp } from "../../support/BrowserStack.js"
import { AnonymousApiClient } from "../../support/TestServer.js"

const suite = useBrowserStackWithSmtp()
const { api, openScreen } = suite

/** The token of the newest invitation mail to `email`: the fragment of its link. */
const invitationToken = async (email: string) => {
  const mailTo = () => suite.smtp.messages.findLast((mail) => mail.envelopeTo.includes(email))
  await expect.poll(() => mailTo() !== undefined, { timeout: 30_000 }).toBe(true)
  const link = /\/admin\/invitation#([A-Za-z0-9_-]+)/.exec(mailTo()!.parsed.text ?? "")
  expect(link).not.toBeNull()
  return link![1]!
}

/** Signs the browser out of any session and in as `email` through the form, on `screen`. */
const signInAs = async (email: string, password: string, screen: string): Promise<Page> => {
  await suite.browser.context.clearCookies()
  const page = await suite.browser.context.newPage()
  await page.goto(`${suite.stack.baseUrl}/admin#/${screen}`)
  await page.getByLabel("E-mail").fill(email)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("navigation", { name: "Main" }).waitFor()
  return page
}

const password = "a long enough password"

/** A member with `role`, invited by the suite's key and accepted through the API. */
const member = async (email: string, name: string, role: "admin" | "editor" | "viewer") => {
  await api((client) => client.team.invite({ payload: { email, role } }))
  const token = await invitationToken(email)
  await suite.stack.run(Effect.flatMap(
    AnonymousApiClient,
    (client) => client.auth.acceptInvitation({ payload: { token, name, password } })
  ))
}

describe("dashboard team and roles", () => {
  it("the owner invites an editor, who accepts from the mail's link and gets an editor's actions", async () => {
    const database = await api((client) => client.components.create({ payload: { name: "Database" } }))
    await api((client) =>
      client.incidents.create({
        payload: { title: "Disk full", message: "Writes fail.", status: "investigating", componentIds: [database.id] }
      })
    )

    const team = await openScreen("team")
    await team.getByRole("heading", { name: "Team", level: 1 }).waitFor()
    const owner = team.getByRole("row").filter({ hasText: adminEmail })
    await expect.poll(() => owner.getByLabel(/^Role of /).inputValue()).toBe("owner")

    const invite = team.getByRole("form", { name: "Invite" })
    await invite.getByLabel("E-mail").fill("eda@example.com")
    await invite.getByLabel("Role").selectOption("editor")
    await invite.getByRole("button", { name: "Send invitation" }).click()
    await expectStatusMessage(team, "An invitation was sent to eda@example.com.")
    const invitations = team.getByRole("region", { name: "Open invitations" })
    await expect.poll(() => invitations.getByRole("row").filter({ hasText: "eda@example.com" }).textContent())
      .toContain("Editor")
    await expectAccessible(team)
    await team.setViewportSize({ width: 390, height: 844 })
    await expectFitsViewport(team)
    await screenshot(team, "team")

    // The invitee opens the mail's link in a browser without a session.
    const token = await invitationToken("eda@example.com")
    await suite.browser.context.clearCookies()
    const page = await suite.browser.context.newPage()
    await page.goto(`${suite.stack.baseUrl}/admin/invitation#${token}`)
    await page.getByRole("heading", { name: "Join the status admin", level: 1 }).waitFor()
    // The token leaves the address bar at once.
    expect(page.url()).toBe(`${suite.stack.baseUrl}/admin/invitation`)
    await expect.poll(() => page.getByRole("main").textContent()).toContain("You are invited as Editor")
    expect(await page.getByLabel("E-mail").inputValue()).toBe("eda@example.com")
    await expectAccessible(page)
    const form = page.getByRole("form", { name: "Create your account" })
    await form.getByLabel("Name").fill("Eda Editor")
    await form.getByLabel(/^New password/).fill(password)
    await form.getByLabel("Repeat the new password").fill("something else entirely")
    await form.getByRole("button", { name: "Join the team" }).click()
    await expect.poll(() => form.getByLabel("Repeat the new password").getAttribute("aria-invalid")).toBe("true")
    await form.getByLabel("Repeat the new password").fill(password)
    await form.getByRole("button", { name: "Join the team" }).click()

    // Signed in, in the dashboard, as an editor.
    await page.getByRole("navigation", { name: "Main" }).waitFor()
    expect(page.url()).toBe(`${suite.stack.baseUrl}/admin`)
    await expect.poll(() => page.locator("header").textContent()).toContain("Role: Editor")
    const members = await api((client) => client.team.listUsers({ query: {} }))
    expect(members.find((member) => member.email === "eda@example.com")).toMatchObject({
      name: "Eda Editor",
      role: "editor",
      disabled: false
    })

    await page.goto(`${suite.stack.baseUrl}/admin#/incidents`)
    await page.getByRole("heading", { name: "Incidents", level: 1 }).waitFor()
    const incident = itemCard(page, "Disk full")
    await incident.getByRole("button", { name: "Post update" }).waitFor()
    expect(await incident.getByRole("button", { name: "Resolve" }).count()).toBe(1)
    expect(await page.getByRole("form", { name: "New incident" }).count()).toBe(1)

    await page.goto(`${suite.stack.baseUrl}/admin#/components`)
    await page.getByRole("heading", { name: "Components", level: 1 }).waitFor()
    // A status, yes; creating, editing or deleting a component, no.
    await page.getByLabel("Status of Database").waitFor()
    expect(await page.getByRole("heading", { name: "New component" }).count()).toBe(0)
    expect(await page.getByRole("button", { name: /^Edit/ }).count()).toBe(0)
    expect(await page.getByRole("button", { name: "Delete" }).count()).toBe(0)

    // The team is read-only for an editor; the link worked once.
    await page.goto(`${suite.stack.baseUrl}/admin#/team`)
    await page.getByRole("heading", { name: "Team", level: 1 }).waitFor()
    await page.getByRole("row").filter({ hasText: "eda@example.com" }).waitFor()
    expect(await page.getByRole("form", { name: "Invite" }).count()).toBe(0)
    expect(await page.getByLabel(/^Role of /).count()).toBe(0)
    await page.goto(`${suite.stack.baseUrl}/admin/invitation#${token}`)
    await expect.poll(() => page.getByRole("main").textContent()).toContain("This invitation link does not work")
  })

  it("a viewer sees no write action on incidents, components, settings or the team", async () => {
    const search = await api((client) => client.components.create({ payload: { name: "Search" } }))
    await api((client) =>
      client.incidents.create({
        payload: { title: "Slow search", message: "Searches time out.", componentIds: [search.id] }
      })
    )
    await member("vic@example.com", "Vic Viewer", "viewer")

    const page = await signInAs("vic@example.com", password, "incidents")
    await page.getByRole("heading", { name: "Incidents", level: 1 }).waitFor()
    const incident = itemCard(page, "Slow search")
    await incident.getByRole("button", { name: "Timeline" }).waitFor()
    // Reading its timeline is all a viewer may do with it.
    expect(await incident.getByRole("button").count()).toBe(1)
    expect(await page.getByRole("form", { name: "New incident" }).count()).toBe(0)

    await page.goto(`${suite.stack.baseUrl}/admin#/components`)
    await page.getByRole("heading", { name: "Components", level: 1 }).waitFor()
    const row = page.getByRole("row").filter({ hasText: "Search" })
    await expect.poll(() => row.textContent()).toContain("Operational")
    expect(await page.getByLabel("Status of Search").count()).toBe(0)
    expect(await page.getByRole("main").getByRole("button").count()).toBe(0)
    expect(await page.getByRole("heading", { name: "New component" }).count()).toBe(0)

    await page.goto(`${suite.stack.baseUrl}/admin#/settings`)
    await page.getByRole("heading", { name: "Organization profile" }).waitFor()
    await expect.poll(() => page.getByRole("main").getByRole("button").count()).toBe(0)
    expect(await page.getByRole("heading", { name: "API keys" }).count()).toBe(0)
    await expectAccessible(page)
  })

  it("the owner changes a role and deletes a member; demoting the last owner shows the API's refusal", async () => {
    const page = await signInAs(adminEmail, adminPassword, "team")
    await page.getByRole("heading", { name: "Team", level: 1 }).waitFor()

    const vic = page.getByRole("row").filter({ hasText: "vic@example.com" })
    await vic.getByLabel("Role of Vic Viewer (vic@example.com)").selectOption("editor")
    await expectStatusMessage(page, "Vic Viewer is now editor.")

    const owner = page.getByRole("row").filter({ hasText: adminEmail })
    await owner.getByLabel(/^Role of /).selectOption("admin")
    await expect.poll(() => owner.getByRole("alert").textContent()).toContain("owner")
    // The refused change is not shown as made.
    await expect.poll(() => owner.getByLabel(/^Role of /).inputValue()).toBe("owner")

    await vic.getByRole("button", { name: "Delete Vic Viewer (vic@example.com)" }).click()
    await vic.getByRole("button", { name: "Yes, delete Vic Viewer (vic@example.com)" }).click()
    await expectStatusMessage(page, "Vic Viewer was deleted.")
    const members = await api((client) => client.team.listUsers({ query: {} }))
    expect(members.map((member) => member.email)).not.toContain("vic@example.com")
  })

  it("your account: lists your sessions, signs another out, changes your password and signs this one out", async () => {
    await member("ann@example.com", "Ann Admin", "admin")
    // Another session of Ann's, elsewhere.
    const elsewhere = await suite.stack.run(signIn("ann@example.com", password))
    expect(elsewhere.status).toBe(200)

    const page = await signInAs("ann@example.com", password, "account")
    await page.getByRole("heading", { name: "Your account", level: 1 }).waitFor()
    const sessions = page.getByRole("region", { name: "Your sessions" }).getByRole("row")
    // The heading row, and three sessions: accepting the invitation, elsewhere, and this one.
    await expect.poll(() => sessions.count()).toBe(4)
    const other = sessions.filter({ hasNotText: "this session" }).nth(1)
    await other.getByRole("button", { name: /^Sign out the session started/ }).click()
    await other.getByRole("button", { name: "Sign out that session" }).click()
    await expect.poll(() => page.getByRole("region", { name: "Your sessions" }).getByRole("status").textContent())
      .toBe("The session was signed out.")
    await expect.poll(() => sessions.count()).toBe(3)

    const form = page.getByRole("form", { name: "Change your password" })
    await form.getByLabel("Current password").fill("not the password at all")
    await form.getByLabel(/^New password/).fill("an even longer new password")
    await form.getByLabel("Repeat the new password").fill("an even longer new password")
    await form.getByRole("button", { name: "Change password" }).click()
    await form.getByRole("alert").waitFor()
    await form.getByLabel("Current password").fill(password)
    await form.getByRole("button", { name: "Change password" }).click()
    await expect.poll(() => form.getByRole("status").textContent()).toBe(
      "Your password was changed; your other sessions were signed out."
    )
    // The other sessions ended with the change; the new password signs in.
    await page.reload()
    await expect.poll(() => sessions.count()).toBe(2)
    expect(await sessions.nth(1).textContent()).toContain("this session")
    expect((await suite.stack.run(signIn("ann@example.com", "an even longer new password"))).status).toBe(200)
    await expectAccessible(page)

    const current = sessions.filter({ hasText: "this session" })
    await current.getByRole("button", { name: /^Sign out the session started/ }).click()
    await current.getByRole("button", { name: "Sign out this session" }).click()
    await page.getByRole("heading", { name: "Sign in to the status admin" }).waitFor()
  })
})
