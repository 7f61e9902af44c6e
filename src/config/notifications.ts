/** The notification settings: delivery, budgets and each channel's credentials. */
import type { NotificationsConfig } from './shape.js';
import { boolean, ConfigError, integer, url, type Env } from './values.js';

/** The notifications API key of a service whose only network is the embedded devnet. */
export const DEVNET_NOTIFICATIONS_API_KEY = 'devnet';

/**
 * The VAPID subject push services may contact: a `mailto:` or `https:` URL of the operator's.
 * Only the devnet alone may go without one (push services refuse a `localhost` contact).
 */
function vapidSubject(env: Env, localOnly: boolean): string {
  const subject = env.WEB_PUSH_SUBJECT;
  if (!subject) {
    if (localOnly) return 'mailto:notices@localhost';
    throw new ConfigError('WEB_PUSH_SUBJECT', 'is required with the VAPID keys: mailto: or https:');
  }
  if (!/^(mailto:\S+@\S+|https:\/\/\S+)$/.test(subject)) {
    throw new ConfigError('WEB_PUSH_SUBJECT', 'must be a mailto: or https: URL');
  }
  return subject;
}

/**
 * `localOnly`: the embedded devnet is the only live network (`npm start` on its defaults). There
 * the API key defaults to `devnet`, so notices show out of the box, and notices may go to
 * receivers on this machine; anywhere else notifications stay off until a key is set, and only
 * public addresses receive them unless DELIVERY_ALLOW_PRIVATE_HOSTS says otherwise.
 */
export function notifications(env: Env, localOnly: boolean): NotificationsConfig {
  const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  const [publicKey, privateKey] = [env.WEB_PUSH_VAPID_PUBLIC_KEY, env.WEB_PUSH_VAPID_PRIVATE_KEY];
  if (Boolean(publicKey) !== Boolean(privateKey)) {
    throw new ConfigError(
      'WEB_PUSH_VAPID_PRIVATE_KEY',
      'and WEB_PUSH_VAPID_PUBLIC_KEY go together',
    );
  }
  const botToken = env.TELEGRAM_BOT_TOKEN;
  return {
    enabled: boolean(env, 'NOTIFICATIONS_ENABLED', true),
    apiKey: env.NOTIFICATIONS_API_KEY || (localOnly ? DEVNET_NOTIFICATIONS_API_KEY : null),
    delivery: {
      pollIntervalMs: integer(env, 'DELIVERY_POLL_INTERVAL_MS', 1000, 10, 600_000),
      // With the 1 s base doubling to the 1 h cap: about 8 h of retries before a row fails, so a
      // receiver down for an afternoon loses nothing.
      maxAttempts: integer(env, 'DELIVERY_MAX_ATTEMPTS', 20, 1, 1000),
      backoffBaseMs: integer(env, 'DELIVERY_BACKOFF_BASE_MS', 1000, 1, 3_600_000),
      backoffMaxMs: integer(env, 'DELIVERY_BACKOFF_MAX_MS', 3_600_000, 1, 86_400_000),
      webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 5000, 10, 600_000),
      allowPrivateAddresses: boolean(env, 'DELIVERY_ALLOW_PRIVATE_HOSTS', localOnly),
      budgets: {
        perAccountPerHour: integer(env, 'DELIVERY_ACCOUNT_BUDGET', 1000, 0, 10_000_000),
        perDestinationPerHour: integer(env, 'DELIVERY_DESTINATION_BUDGET', 300, 0, 10_000_000),
        verificationsPerDestinationPerDay: integer(
          env,
          'DELIVERY_VERIFICATION_BUDGET',
          5,
          0,
          10_000,
        ),
      },
    },
    email: smtpUrl
      ? {
          smtpUrl,
          from: env.SMTP_FROM || 'batchbook <notices@localhost>',
          allowPlaintextAuth: boolean(env, 'SMTP_ALLOW_PLAINTEXT_AUTH', false),
        }
      : null,
    webPush:
      publicKey && privateKey
        ? { publicKey, privateKey, subject: vapidSubject(env, localOnly) }
        : null,
    telegram: botToken
      ? {
          botToken,
          apiUrl: url(env, 'TELEGRAM_API_URL', ['http:', 'https:']) ?? 'https://api.telegram.org',
        }
      : null,
  };
}
