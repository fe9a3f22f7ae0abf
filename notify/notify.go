package notify

import (
	"bytes"
	"context"
	"encoding/json"
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
}

// New returns a Notifier posting to rawURL, or nil when rawURL is "" (notifications off). A URL
// that is not http(s)://host/... is refused.
func New(rawURL string, o Options) (*Notifier, error) {
	if rawURL == "" {
		return nil, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--notify-url %q: want an http:// or https:// URL with a host", rawURL)
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
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	return o
}

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
		return fmt.Errorf("notify: %d of %d events not delivered to %s", d, d+n.sent.Load(), redact(n.url))
	}
	return nil
}

func (n *Notifier) loop() {
	defer close(n.done)
	for e := range n.queue {
		if n.ctx.Err() == nil && n.deliver(e) == nil {
			n.sent.Add(1)
		} else {
			n.dropped.Add(1)
		}
	}
}

// deliver posts e until the webhook answers 2xx, at most Attempts times.
func (n *Notifier) deliver(e Event) error {
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	wait := n.opts.Backoff
	for i := 0; ; i++ {
		if err = n.post(body); err == nil || i+1 >= n.opts.Attempts {
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
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}

// redact drops the URL's user info and query, which may hold a token.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the webhook"
	}
	u.User, u.RawQuery = nil, ""
	return u.String()
}
