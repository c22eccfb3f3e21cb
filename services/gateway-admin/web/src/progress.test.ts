import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { JobProgressBox, ProgressBox } from './progress';

describe('ProgressBox', () => {
  it('labels its bar by the test id, with the data attributes given, then what follows the bar', () => {
    const html = renderToStaticMarkup(
      createElement(
        ProgressBox,
        {
          testId: 'import-progress',
          'data-status': 'running',
          'data-percent': 30,
          label: 'Running',
          max: 10,
          value: 3,
        },
        createElement('p', { role: 'status' }, 'Done'),
      ),
    );
    expect(html).toBe(
      '<div class="export-progress" data-testid="import-progress" data-status="running" data-percent="30">' +
        '<label for="import-progress-bar">Running</label>' +
        '<progress id="import-progress-bar" max="10" value="3"></progress>' +
        '<p role="status">Done</p></div>',
    );
  });

  it('runs with no known end without a max and a value', () => {
    const html = renderToStaticMarkup(
      createElement(ProgressBox, { testId: 'gdpdu-progress', 'data-busy': 'true', label: 'Receiving' }),
    );
    expect(html).toBe(
      '<div class="export-progress" data-testid="gdpdu-progress" data-busy="true">' +
        '<label for="gdpdu-progress-bar">Receiving</label><progress id="gdpdu-progress-bar"></progress></div>',
    );
  });
});

describe('JobProgressBox', () => {
  it("shows the job's status first, as data-status and in words before how far it got", () => {
    const html = renderToStaticMarkup(
      createElement(JobProgressBox, {
        testId: 'import-progress',
        status: 'running',
        'data-percent': 30,
        statusText: 'Running',
        detail: '3 of 10 rows',
        max: 10,
        value: 3,
      }),
    );
    expect(html).toBe(
      '<div class="export-progress" data-testid="import-progress" data-status="running" data-percent="30">' +
        '<label for="import-progress-bar">Running · 3 of 10 rows</label>' +
        '<progress id="import-progress-bar" max="10" value="3"></progress></div>',
    );
  });
});
