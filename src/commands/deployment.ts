/**
 * This deployment's identity: 32 random bytes recorded once in the ledger (`DeploymentIdentified`
 * on the `deployment` stream) by the first instance to start, and read by every other. One
 * ledger is one deployment, whatever number of instances serve it; another ledger has another
 * identity, so what is signed for one deployment (subscription requests) is void on another.
 */
import { randomBytes } from 'node:crypto';
import { deterministicEventId } from '../domain/event-ids.js';
import { streams, type DeploymentIdentifiedV1, type Hex } from '../domain/events.js';
import { bytesToHex } from '../bytes/hex.js';
import { upcast } from '../domain/upcast.js';
import type { Ledger } from '../ledger/port.js';
import { envelope } from '../domain/event-envelope.js';
import { decideAgainOnConflict } from './decide-again.js';

export async function deploymentId(ledger: Ledger, clock: () => Date): Promise<Hex> {
  // Another instance that records it first wins: its identity is read instead.
  return decideAgainOnConflict(async () => {
    const [recorded] = await ledger.readStream(streams.deployment());
    if (recorded) {
      const event = upcast(recorded.type, recorded.version, recorded.data);
      return (event.data as DeploymentIdentifiedV1).deploymentId;
    }
    const data: DeploymentIdentifiedV1 = {
      deploymentId: bytesToHex(randomBytes(32)),
      identifiedAt: clock().toISOString(),
    };
    await ledger.append(
      streams.deployment(),
      [
        envelope(
          { type: 'DeploymentIdentified', data },
          deterministicEventId('DeploymentIdentified'),
        ),
      ],
      'noStream',
    );
    return data.deploymentId;
  });
}
