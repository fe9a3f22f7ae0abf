// Command serve is the real lab's package server: it answers GET and HEAD for the files under
// DIR on ADDR (serve DIR ADDR) and logs each request with its status, so that a test can see
// which packages the nodes fetched. It stands in for the web server of a package mirror.
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: serve DIR ADDR")
		os.Exit(2)
	}
	files := http.FileServer(http.Dir(os.Args[1]))
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &status{ResponseWriter: w, code: http.StatusOK}
		files.ServeHTTP(rec, r)
		log.Printf("%s %s %d", r.Method, r.URL.Path, rec.code)
	})
	log.Fatal(http.ListenAndServe(os.Args[2], handler))
}

// status remembers the response's status code for the log line.
type status struct {
	http.ResponseWriter
	code int
}

func (s *status) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}
