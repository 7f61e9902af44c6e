/**
 * One auction's competition (GET /solver_competition/{id}): every solution with its solver,
 * score, rank, whether it won, the executed amounts of its orders, its clearing prices and what
 * became of its settlement transaction; the winner's flows as a picture.
 */
import { api, type Competition, type Solution } from '../api.js';
import { FlowsDiagram } from '../charts/flows.js';
import { OrderLink, Problem, Scroll, TokenAmount } from '../components.js';
import { counted, native, short, symbolOf } from '../format.js';
import { useLiveNotes } from '../live.js';
import { href } from '../routing.js';
import { useApi } from '../use-api.js';

/** What became of a solution's settlement, as far as the competition tells. */
function settlement(solution: Solution, competition: Competition): string {
  if (!solution.isWinner) return 'not a winner';
  if (solution.txHash === null) return 'failed before landing';
  if (competition.transactionHashes.includes(solution.txHash)) return 'settled on chain';
  return 'submitted, not seen on chain yet';
}

export function CompetitionView({
  network,
  competition,
}: {
  network: string;
  competition: Competition;
}) {
  const solutions = [...competition.solutions].sort((a, b) => a.ranking - b.ranking);
  const winner = solutions.find((s) => s.isWinner);
  return (
    <article class="card" data-auction-id={competition.auctionId}>
      <h3>
        <a href={href(network, 'auction', competition.auctionId)}>
          Auction {competition.auctionId}
        </a>
      </h3>
      <p class="muted">
        blocks {competition.auctionStartBlock}–{competition.auctionDeadlineBlock} ·{' '}
        {counted(competition.auction.orders.length, 'order')} ·{' '}
        {counted(solutions.length, 'solution')}
      </p>
      {solutions.length === 0 ? <p>No solver proposed a solution.</p> : null}
      {solutions.length > 0 ? (
        <Scroll label={`Solutions of auction ${competition.auctionId}`}>
          <table>
            <caption class="visually-hidden">
              Solutions of auction {competition.auctionId}, best first
            </caption>
            <thead>
              <tr>
                <th scope="col">rank</th>
                <th scope="col">solver</th>
                <th scope="col">score (native)</th>
                <th scope="col">outcome</th>
                <th scope="col">executed</th>
                <th scope="col">clearing prices</th>
                <th scope="col">settlement</th>
              </tr>
            </thead>
            <tbody>
              {solutions.map((s) => (
                <tr key={s.ranking} class={s.isWinner ? 'winner' : ''}>
                  <td>{s.ranking}</td>
                  <td class="mono" title={s.solverAddress}>
                    {short(s.solverAddress)}
                  </td>
                  <td>{native(s.score)}</td>
                  <td>{s.isWinner ? 'winner' : s.filteredOut ? 'filtered out' : 'lost'}</td>
                  <td>
                    <ul class="plain">
                      {s.orders.map((o) => (
                        <li key={o.id}>
                          <OrderLink network={network} uid={o.id} />:{' '}
                          {o.sellToken ? (
                            <TokenAmount
                              network={network}
                              token={o.sellToken}
                              atoms={o.sellAmount}
                            />
                          ) : (
                            o.sellAmount
                          )}{' '}
                          →{' '}
                          {o.buyToken ? (
                            <TokenAmount network={network} token={o.buyToken} atoms={o.buyAmount} />
                          ) : (
                            o.buyAmount
                          )}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    <ul class="plain">
                      {Object.entries(s.clearingPrices).map(([token, price]) => (
                        <li key={token}>
                          {symbolOf(network, token)}: {price}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    {s.txHash ? (
                      <span class="mono" title={s.txHash}>
                        {short(s.txHash)}
                      </span>
                    ) : null}{' '}
                    {settlement(s, competition)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : null}
      {winner ? (
        <>
          <h4>The winning settlement’s flows</h4>
          <FlowsDiagram
            network={network}
            orders={winner.orders}
            prices={competition.auction.prices}
          />
        </>
      ) : null}
    </article>
  );
}

/** The page of one auction, by id. */
export function AuctionPage({ network, id }: { network: string; id: string }) {
  const competition = useApi(`${network}/${id}`, () =>
    api<Competition>(`/${network}/api/v2/solver_competition/${encodeURIComponent(id)}`),
  );
  useLiveNotes((note) => {
    if (note.type === 'connected' || String(note.auctionId) === id || note.type === 'TradeSettled')
      competition.reload();
  });
  return (
    <>
      <h1>Auction {id}</h1>
      <Problem problem={competition.problem} what="The competition could not be read" />
      {competition.data ? (
        <CompetitionView network={network} competition={competition.data} />
      ) : null}
    </>
  );
}
