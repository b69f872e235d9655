# The Note Bridge worker: a small, non-root image built in two stages.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/worker ./worker \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/graph-emulator ./emulator/cmd/graph-emulator \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/notion-emulator ./emulator/cmd/notion-emulator

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ /usr/local/bin/
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/worker"]
