// Test helper: a summary as a reader sees it, label by label: the text of each value and
// the links in it, rendered to static markup (no browser).
import { MantineProvider } from '@mantine/core';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Permissions } from '../session/session';
import type { SummaryItem } from './summary-parts';

export interface ReadItem {
  text: string;
  links: string[];
}

/** A viewer who may do anything, or nothing but what `allow` says. */
export function permsThat(allow: (verb: string, kind: string) => boolean = () => true): Permissions {
  return { can: (verb, kind) => allow(verb, kind), canListSomewhere: () => true, namespacesFor: () => 'all' };
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'", '&#39;': "'", '&apos;': "'" };

export function readItems(items: SummaryItem[]): Record<string, ReadItem> {
  const out: Record<string, ReadItem> = {};
  for (const i of items) {
    const html = renderToStaticMarkup(createElement(MantineProvider, null, i.value)).replace(/<style[^>]*>[\s\S]*?<\/style>/g, '');
    const links = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    const text = html
      .replace(/<[^>]+>/g, ' ')
      .replace(/&[#a-z0-9]+;/gi, (e) => ENTITIES[e] ?? e)
      .replace(/\s+/g, ' ')
      .trim();
    out[i.label] = { text, links };
  }
  return out;
}
