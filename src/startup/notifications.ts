/**
 * The subscriptions and their deliveries: this deployment's identity (subscription requests are
 * signed for it), the delivery worker draining the outbox the notices projector fills, and the
 * reader of the codes chats send the Telegram bot.
 */
import { startLeaderLoop } from '../chain/leader-loop.js';
import { deploymentId } from '../commands/deployment.js';
import { verifyDestination, verifyTelegramChat } from '../commands/destination-verification.js';
import { Rejection } from '../commands/rejection.js';
import type { SubscriptionsDeps } from '../commands/subscriptions.js';
import type { Config } from '../config.js';
import { DeliveryError } from '../delivery/channel.js';
import { telegramUpdatesStep } from '../delivery/channels/telegram-updates.js';
import { createHttpClient } from '../delivery/http.js';
import { startDeliveryWorker, type DeliveryObserver } from '../delivery/worker.js';
import { subscriptionsDomainSeparator } from '../subscriptions/typed-data.js';
import type { ProjectionThreadEngine } from '../projection-thread/thread.js';
import type { Chains } from './chains.js';
import type { Infrastructure } from './infrastructure.js';
import type { Queries } from './queries.js';
import type { Lifetime } from './lifetime.js';

export interface Notifications {
  subscriptions: SubscriptionsDeps;
}

/**
 * Runs after the chains, whose devnet starts afresh on an empty ledger (the deployment's
 * identity may be the ledger's first event), and after the projections, whose migrations create
 * the outbox.
 */
export async function startNotifications(
  config: Config,
  infra: Infrastructure,
  queries: Queries,
  _startedAfter: { chains: Chains; projections: ProjectionThreadEngine },
  clock: () => Date,
  life: Lifetime,
  observer: DeliveryObserver,
): Promise<Notifications> {
  const { ledger, db, requestLeadership, logger } = infra;
  const { notifications } = config;
  const deployment = await deploymentId(ledger, clock);
  const subscriptions: SubscriptionsDeps = {
    ledger,
    clock,
    enabled: notifications.enabled,
    apiKey: notifications.apiKey,
    deploymentId: deployment,
    domainSeparator: subscriptionsDomainSeparator(deployment),
    channels: {
      email: notifications.email !== null,
      webpush: notifications.webPush !== null,
      telegram: notifications.telegram !== null,
    },
    allowPrivateAddresses: notifications.delivery.allowPrivateAddresses,
  };
  if (!notifications.enabled) return { subscriptions };

  // Every instance may run one: rows are claimed with leases.
  const delivery = startDeliveryWorker({
    db,
    config: notifications,
    logger,
    observer,
    verified: async (request) => {
      try {
        await verifyDestination(subscriptions, request.account, request.subscriptionId, {
          method: 'webhookChallenge',
          challenge: request.challenge,
        });
      } catch (error) {
        // Removed meanwhile, or a challenge of no subscription: no retry changes that.
        if (!(error instanceof Rejection)) throw error;
        throw new DeliveryError(error.description, { permanent: true });
      }
    },
  });
  life.onStop(() => delivery.stop());

  // One instance reads the bot's updates.
  const { telegram } = notifications;
  if (telegram) {
    const client = createHttpClient();
    const updates = startLeaderLoop({
      requestLeadership,
      key: ['batchbook.delivery.telegram-updates', 'bot'],
      pollIntervalMs: notifications.delivery.pollIntervalMs,
      logger,
      step: telegramUpdatesStep({
        ...telegram,
        client,
        timeoutMs: notifications.delivery.webhookTimeoutMs,
        logger,
        verify: (code, chat) =>
          verifyTelegramChat(
            { ...subscriptions, findTelegramCode: queries.subscriptions.pendingTelegram },
            code,
            chat,
          ),
      }),
    });
    life.onStop(async () => {
      await updates.stop();
      client.close();
    });
  }
  return { subscriptions };
}
