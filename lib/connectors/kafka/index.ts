import './kafka-source';
import './kafka-sink';
