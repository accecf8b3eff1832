import { EmptyState } from '../../components/states';
import { ChatScreen } from '../chat/chat-screen';
import { useChatPaneKey } from '../chat/new-chat';
import { ConversationList } from '../conversations/conversation-list';
import { KeyboardHelp, useInboxKeys } from './keyboard';
import { PaneContext, useWide } from './pane';
import './layout.css';

/**
 * The inbox and a conversation. On a phone they are two screens (/ and /chat?id=…); from 1024 px they sit
 * side by side under the same URLs, so deep links, Back and the service worker's notification links work
 * unchanged. The keyboard flow (j/k, Enter, a/e/d, /, ?) is on in both.
 */
export function InboxScreens({ path, id }: { path: '/' | '/chat'; id: string | undefined }) {
  const wide = useWide();
  const keys = useInboxKeys();
  const paneKey = useChatPaneKey(path === '/chat' ? id : undefined);
  const help = <KeyboardHelp open={keys.helpOpen} onClose={keys.closeHelp} />;
  if (!wide) {
    return (
      <>
        {path === '/' ? <ConversationList /> : <ChatScreen id={id} />}
        {help}
      </>
    );
  }
  return (
    <div className="split">
      <PaneContext.Provider value="list">
        <div className="split-list">
          <ConversationList selectedId={path === '/chat' ? id : undefined} />
        </div>
      </PaneContext.Provider>
      <PaneContext.Provider value="detail">
        <div className="split-detail">
          {path === '/chat' ? (
            // One conversation's live turn never carries over into the next one opened beside the list (a new
            // chat keeps its screen when its first turn moves it to the conversation it started: new-chat.ts).
            <ChatScreen key={paneKey} id={id} />
          ) : (
            <main className="split-empty">
              <EmptyState title="No conversation open">
                {/* One paragraph: the empty state lays its children out as grid rows. */}
                <p>
                  Pick one from the list, or press <kbd>j</kbd> and <kbd>Enter</kbd>. <kbd>?</kbd> shows all
                  keys.
                </p>
              </EmptyState>
            </main>
          )}
        </div>
      </PaneContext.Provider>
      {help}
    </div>
  );
}
