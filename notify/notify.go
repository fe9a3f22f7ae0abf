package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Options bound what a Notifier spends on one event.
type Options struct {
	Timeout  time.Duration // of one POST (default 5s)
	Attempts int           // POSTs of one event before it is given up (default 3)
	Backoff  time.Duration // wait before the second POST, doubled before each next (default 500ms)
	Queue    int           // events waiting to be posted; more are dropped (default 64)
	Client   *http.Client  // default: a client of its own
}

// Notifier posts events to one webhook, in the background. A nil *Notifier does nothing.
type Notifier struct {
	url     string
	opts    Options
	queue   chan Event
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
	sent    atomic.Int64
	dropped atomic.Int64
	lastErr atomic.Value // string: why the last event given up was not delivered, no token in it
}

// New returns a Notifier posting to rawURL, or nil when rawURL is "" (notifications off). A URL
// that is not http(s)://host/... is refused, without quoting it (its path may hold a token).
func New(rawURL string, o Options) (*Notifier, error) {
	if rawURL == "" {
		return nil, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("--notify-url: want an http:// or https:// URL with a host (the URL is not shown: it may hold a token)")
	}
	o = o.withDefaults()
	n := &Notifier{url: rawURL, opts: o, queue: make(chan Event, o.Queue), done: make(chan struct{})}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	go n.loop()
	return n, nil
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
	if o.Queue <= 0 {
		o.Queue = 64
	}
	c := http.Client{}
	if o.Client != nil {
		c = *o.Client
	}
	c.CheckRedirect = refuseRedirect
	o.Client = &c
	return o
}

// refuseRedirect stops the client at a redirect: following it would send the payload (cluster,
// hosts, findings) to wherever the answer points, another host or plain http included. post
// reports the redirect as the delivery's failure.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Send queues e and returns at once; when the queue is full (the webhook is slower than the
// events) or the Notifier is closed, e is dropped.
func (n *Notifier) Send(e Event) {
	if n == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	defer func() { _ = recover() }() // a Send after Close: dropped, as documented
	select {
	case n.queue <- e:
	default:
		n.dropped.Add(1)
	}
}

// Close stops taking events and posts what is queued for at most deadline; then the POST in
// progress is cancelled and the rest dropped. It reports what was not delivered.
func (n *Notifier) Close(deadline time.Duration) error {
	if n == nil {
		return nil
	}
	n.once.Do(func() { close(n.queue) })
	t := time.NewTimer(deadline)
	defer t.Stop()
	select {
	case <-n.done:
	case <-t.C:
		n.cancel()
		<-n.done
	}
	n.cancel()
	if d := n.dropped.Load(); d > 0 {
		why, _ := n.lastErr.Load().(string)
		if why != "" {
			why = " (last: " + why + ")"
		}
		return fmt.Errorf("notify: %d of %d events not delivered to %s%s", d, d+n.sent.Load(), redact(n.url), why)
	}
	return nil
}

func (n *Notifier) loop() {
	defer close(n.done)
	for e := range n.queue {
		if n.ctx.Err() != nil {
			n.dropped.Add(1)
		} else if err := n.deliver(e); err != nil {
			n.lastErr.Store(err.Error())
			n.dropped.Add(1)
		} else {
			n.sent.Add(1)
		}
	}
}

// deliver posts e until the webhook answers 2xx, at most Attempts times; a redirect is final.
func (n *Notifier) deliver(e Event) error {
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	wait := n.opts.Backoff
	for i := 0; ; i++ {
		if err = n.post(body); err == nil || i+1 >= n.opts.Attempts || errors.Is(err, errRedirect) {
			return err
		}
		select {
		case <-n.ctx.Done():
			return n.ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func (n *Notifier) post(body []byte) error {
	ctx, cancel := context.WithTimeout(n.ctx, n.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := n.opts.Client.Do(req)
	if err != nil {
		return withoutURL(err)
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode/100 == 3:
		return fmt.Errorf("webhook answered %s, a redirect to %s: %w", resp.Status, redactLocation(resp), errRedirect)
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}

// errRedirect is a webhook's redirect, refused and not retried.
var errRedirect = errors.New("redirects are refused, the payload is not sent on; give --notify-url the address the webhook redirects to")

// withoutURL is err without the URL net/http puts in its errors (its path may hold a token).
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s %s: %w", ue.Op, redact(ue.URL), ue.Err)
	}
	return err
}

// redactLocation is where a redirect points, scheme and host only.
func redactLocation(resp *http.Response) string {
	loc, err := resp.Location()
	if err != nil {
		return "an address not given"
	}
	return redact(loc.String())
}

// redact is the URL's scheme and host only: Slack, Discord and Teams keep the webhook's secret
// in its path, others in its query or user info.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "the webhook"
	}
	return u.Scheme + "://" + u.Host
}
