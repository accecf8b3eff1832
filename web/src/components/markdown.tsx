import { memo } from 'react';
import ReactMarkdown, { type Components, defaultUrlTransform } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import './markdown.css';

/**
 * The assistant's answers are markdown (`**`, lists, tables). react-markdown builds React elements from the
 * syntax tree and never parses HTML (no rehype-raw), so a message that contains `<script>` or `<img onerror>`
 * shows it as text. Links are kept only for http(s), mailto and tel (defaultUrlTransform drops `javascript:`),
 * open outside the app, and carry no referrer; images are shown as their alt text, because a remote image in
 * a model's answer would be a beacon the model chose.
 *
 * A half-written answer (token streaming) is valid markdown at every prefix, so the same component renders
 * the stream and the stored message; memo keeps earlier bubbles from re-rendering on every delta.
 */
const SAFE_SCHEMES = /^(https?:|mailto:|tel:)/i;

const components: Components = {
  a: ({ href, children }) =>
    href && SAFE_SCHEMES.test(href) ? (
      <a href={href} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  img: ({ alt }) => <span className="md-img">{alt ? `[image: ${alt}]` : '[image]'}</span>,
  // Headings inside a chat bubble would compete with the screen's own; they read as bold lines.
  h1: ({ children }) => <p className="md-heading">{children}</p>,
  h2: ({ children }) => <p className="md-heading">{children}</p>,
  h3: ({ children }) => <p className="md-heading">{children}</p>,
  h4: ({ children }) => <p className="md-heading">{children}</p>,
  table: ({ children }) => (
    <div className="md-table">
      <table>{children}</table>
    </div>
  ),
};

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        components={components}
        skipHtml
        urlTransform={(url) => (SAFE_SCHEMES.test(url) ? defaultUrlTransform(url) : '')}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});
