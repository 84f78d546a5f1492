import { randomBytes, scrypt } from 'node:crypto';

const KEY_LEN = 32;

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LEN, { N: 16384, r: 8, p: 1 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/**
 * `scrypt$<salt b64>$<key b64>` (docs/chat.md): self-describing so the parameters can change later. Nothing checks a
 * password yet (logins use tokens); the hash is kept for a later password grant.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt);
  return `scrypt$${salt.toString('base64')}$${key.toString('base64')}`;
}
