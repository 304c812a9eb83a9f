/**
 * Passkey ceremonies (WebAuthn Level 3) through `@simplewebauthn/server`: registration of a new account's
 * passkey and sign-in with a discoverable passkey. Imported on first use by the console's ceremony
 * endpoints, so that isolates serving only the API never load the library.
 *
 * Challenges are stored server side (5 minutes, single use) under an id held in a short-lived cookie; the
 * relying-party id and expected origin come from lib/console/config.ts. Passkeys must be resident
 * (discoverable) so that sign-in needs no user name; user verification is preferred.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { ApiError } from '../errors.ts';
import type { ConsoleConfig } from './config.ts';
import {
  createAccount,
  readAccount,
  readCredential,
  saveChallenge,
  saveCredential,
  takeChallenge,
  type Account,
  type ConsoleStore,
} from './accounts.ts';

/** The relying party's display name. */
export const RP_NAME = 'fund-edge developer console';

/** 401 `unauthorized` for a passkey that could not be verified (one answer, whatever the reason). */
export class PasskeyRejectedError extends ApiError {
  constructor() {
    super('unauthorized', 'The passkey could not be verified; try again.');
    this.name = 'PasskeyRejectedError';
  }
}

/**
 * Options for creating a passkey for a new account, and the id of the stored challenge.
 * The user name shown by the authenticator is a generated handle (the console holds no personal data).
 */
export async function registrationOptions(
  kv: ConsoleStore,
  config: ConsoleConfig,
): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; challengeId: string }> {
  const userId = crypto.getRandomValues(new Uint8Array(32));
  const webauthnUserId = isoBase64URL.fromBuffer(userId);
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: config.rpId,
    userID: userId,
    userName: `fund-edge developer ${webauthnUserId.slice(0, 8)}`,
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  const challengeId = await saveChallenge(kv, { challenge: options.challenge, purpose: 'register', webauthnUserId });
  return { options, challengeId };
}

/**
 * Verifies a registration response against its stored challenge; creates the account and stores the passkey.
 * @throws {PasskeyRejectedError} 401 for an unknown, used or expired challenge, or a response that fails
 *   verification (wrong origin, RP id, challenge or signature)
 */
export async function verifyRegistration(
  kv: ConsoleStore,
  config: ConsoleConfig,
  challengeId: string | undefined,
  response: unknown,
  now = new Date(),
): Promise<Account> {
  const pending = challengeId ? await takeChallenge(kv, challengeId) : null;
  if (pending?.purpose !== 'register' || !pending.webauthnUserId) throw new PasskeyRejectedError();
  let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verification = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: pending.challenge,
      expectedOrigin: config.origin,
      expectedRPID: config.rpId,
      requireUserVerification: false,
    });
  } catch {
    throw new PasskeyRejectedError();
  }
  if (!verification.verified) throw new PasskeyRejectedError();
  const { credential } = verification.registrationInfo;
  if (await readCredential(kv, credential.id)) throw new PasskeyRejectedError();
  const account = await createAccount(kv, pending.webauthnUserId, now);
  await saveCredential(kv, {
    credentialId: credential.id,
    accountId: account.accountId,
    publicKey: isoBase64URL.fromBuffer(credential.publicKey),
    counter: credential.counter,
    ...(credential.transports ? { transports: credential.transports } : {}),
    createdAt: now.toISOString(),
  });
  return account;
}

/** Options for signing in with any passkey of this relying party, and the id of the stored challenge. */
export async function authenticationOptions(
  kv: ConsoleStore,
  config: ConsoleConfig,
): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; challengeId: string }> {
  const options = await generateAuthenticationOptions({ rpID: config.rpId, userVerification: 'preferred', allowCredentials: [] });
  const challengeId = await saveChallenge(kv, { challenge: options.challenge, purpose: 'login' });
  return { options, challengeId };
}

/**
 * Verifies a sign-in response against its stored challenge and the stored passkey; updates the counter.
 * @returns the account signed in to
 * @throws {PasskeyRejectedError} 401 for an unknown challenge or passkey, a failed verification, or a
 *   revoked account
 */
export async function verifyAuthentication(
  kv: ConsoleStore,
  config: ConsoleConfig,
  challengeId: string | undefined,
  response: unknown,
): Promise<Account> {
  const pending = challengeId ? await takeChallenge(kv, challengeId) : null;
  const credentialId = typeof (response as { id?: unknown } | null)?.id === 'string' ? (response as { id: string }).id : null;
  if (pending?.purpose !== 'login' || credentialId === null || credentialId.length > 1024) throw new PasskeyRejectedError();
  const stored = await readCredential(kv, credentialId);
  if (!stored) throw new PasskeyRejectedError();
  let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verification = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: pending.challenge,
      expectedOrigin: config.origin,
      expectedRPID: config.rpId,
      requireUserVerification: false,
      credential: {
        id: stored.credentialId,
        publicKey: isoBase64URL.toBuffer(stored.publicKey),
        counter: stored.counter,
        ...(stored.transports ? { transports: stored.transports as AuthenticatorTransportFuture[] } : {}),
      },
    });
  } catch {
    throw new PasskeyRejectedError();
  }
  if (!verification.verified) throw new PasskeyRejectedError();
  const account = await readAccount(kv, stored.accountId);
  if (!account || account.revokedAt !== null) throw new PasskeyRejectedError();
  if (verification.authenticationInfo.newCounter !== stored.counter) {
    await saveCredential(kv, { ...stored, counter: verification.authenticationInfo.newCounter });
  }
  return account;
}
