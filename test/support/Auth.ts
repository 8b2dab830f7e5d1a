/** Signing in over HTTP, and reading the session cookie a response sets. */
import { Effect } from "effect"

import { sendAnonymous } from "./TestServer.js"

export const adminEmail = "ops@example.com"
export const adminPassword = "correct horse battery staple"
export const adminVariables = { ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD: adminPassword }

/** The `Set-Cookie` of a response, split into its value and attributes. */
export const parseSetCookie = (header: string | undefined) => {
  if (header === undefined) return undefined
  const [pair, ...attributes] = header.split(";").map((part) => part.trim())
  const [name, ...value] = pair!.split("=")
  return { name: name!, value: value.join("="), attributes: attributes.map((a) => a.toLowerCase()) }
}

export const signIn = (email = adminEmail, password = adminPassword, headers: Record<string, string> = {}) =>
  Effect.map(sendAnonymous("POST", "/api/v1/auth/signin", { email, password }, headers), (response) => ({
    ...response,
    cookie: parseSetCookie(response.headers["set-cookie"])
  }))

/** Signs in and returns the `Cookie` header value to send. */
export const sessionCookieHeader = Effect.map(signIn(), ({ cookie, status }) => {
  if (status !== 200 || cookie === undefined) throw new Error(`sign-in failed with ${status}`)
  return `${cookie.name}=${cookie.value}`
})
