/** Making and hashing push tokens (src/domain/PushToken.ts says what they are). */
import { createHash, randomBytes } from "node:crypto"

/** A new token: 24 random bytes, 32 characters of base64url. */
export const newPushToken = (): string => randomBytes(24).toString("base64url")

/** What is stored of a token, and what a push is looked up by. */
export const pushTokenHash = (token: string): string => createHash("sha256").update(token).digest("hex")
