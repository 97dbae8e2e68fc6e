// HTTP (node:http through the outbound guard): the http source and the webhook sink.
import './http-source';
import './webhook-sink';
