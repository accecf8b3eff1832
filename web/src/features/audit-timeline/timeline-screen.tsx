import { Shell } from '../../components/shell';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { describeError } from '../../lib/api';
import { clockTime, shortTime } from '../../lib/format';
import { chatPath } from '../../lib/router';
import { useResource } from '../../lib/use-resource';
import { useApi } from '../auth/auth-context';
import { contactName } from '../conversations/source-icon';
import { buildStory, type StoryPoint } from './story';
import './timeline-screen.css';

/** A conversation's audit trail as a picture: a line of what happened, who did it, and when. */
export function TimelineScreen({ id }: { id: string | undefined }) {
  const api = useApi();
  const story = useResource(
    async () => {
      if (!id) return null;
      const [detail, audit] = await Promise.all([api.conversation(id), api.audit(id)]);
      return { title: contactName(detail.conversation), points: buildStory(detail, audit.events) };
    },
    `timeline:${id ?? ''}`,
    { refreshOn: (u) => 'conversationId' in u && u.conversationId === id },
  );
  const data = story.data;
  return (
    <Shell title={data ? `Timeline · ${data.title}` : 'Timeline'} back={id ? chatPath(id) : '/'} tabs={false}>
      {story.loading && !data && <Loading label="Loading the timeline…" />}
      {story.error !== undefined && !data && (
        <ErrorState message={describeError(story.error)} onRetry={() => void story.reload()} />
      )}
      {data && data.points.length === 0 && <EmptyState title="Nothing has happened here yet" />}
      {data && data.points.length > 0 && <Story points={data.points} />}
    </Shell>
  );
}

function Story({ points }: { points: StoryPoint[] }) {
  let day = '';
  return (
    <ol className="story" aria-label="What happened, oldest first">
      {points.map((p) => {
        const d = shortTime(p.at);
        const showDay = !/\d:\d\d/.test(d) && d !== day;
        if (showDay) day = d;
        return (
          <li key={p.id} className={`story-point tone-${p.tone}`}>
            <time dateTime={p.at} className="story-time">
              {showDay && <span className="story-day">{d}</span>}
              {clockTime(p.at)}
            </time>
            <span className="story-dot" aria-hidden="true" />
            <div className="story-body">
              <p className="story-label">
                {p.label}
                {p.who && <span className="story-who"> · {p.who}</span>}
              </p>
              {p.detail && <p className="story-detail">{p.detail}</p>}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
