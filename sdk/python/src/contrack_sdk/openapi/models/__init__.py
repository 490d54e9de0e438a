"""Contains all the data models used in inputs/outputs"""

from .account_alert_settings import AccountAlertSettings
from .account_alert_settings_response import AccountAlertSettingsResponse
from .account_response import AccountResponse
from .activate_webhook_body import ActivateWebhookBody
from .added_response import AddedResponse
from .address import Address
from .alert import Alert
from .alert_settings import AlertSettings
from .alert_settings_response import AlertSettingsResponse
from .alert_vessel import AlertVessel
from .attention_container import AttentionContainer
from .attention_list import AttentionList
from .attention_subscription import AttentionSubscription
from .body import Body
from .bulk_result import BulkResult
from .bulk_subscribe_response import BulkSubscribeResponse
from .carrier_capacity import CarrierCapacity
from .carrier_metrics import CarrierMetrics
from .configure_webhook_body import ConfigureWebhookBody
from .configure_webhook_body_auth_headers_type_0 import (
    ConfigureWebhookBodyAuthHeadersType0,
)
from .connector_auth_body import ConnectorAuthBody
from .connector_body import ConnectorBody
from .connector_fetch_body import ConnectorFetchBody
from .connector_fetch_response import ConnectorFetchResponse
from .connector_response import ConnectorResponse
from .connector_view import ConnectorView
from .connectors_response import ConnectorsResponse
from .create_subscription_body import CreateSubscriptionBody
from .credentials_response import CredentialsResponse
from .credentials_response_carrier_credentials_type_0 import (
    CredentialsResponseCarrierCredentialsType0,
)
from .credentials_response_carrier_credentials_type_0_additional_property import (
    CredentialsResponseCarrierCredentialsType0AdditionalProperty,
)
from .data_quality import DataQuality
from .data_quality_repairs_type_0 import DataQualityRepairsType0
from .delete_credentials_body import DeleteCredentialsBody
from .delete_response import DeleteResponse
from .delivery_list import DeliveryList
from .delivery_record import DeliveryRecord
from .document_reference import DocumentReference
from .document_reference_replacement import DocumentReferenceReplacement
from .equipment_details import EquipmentDetails
from .estimated_cost import EstimatedCost
from .event import Event
from .event_classification import EventClassification
from .event_routing import EventRouting
from .facility import Facility
from .feed_page import FeedPage
from .feed_vessel import FeedVessel
from .feed_vessel_position import FeedVesselPosition
from .feedback_element import FeedbackElement
from .filter_ import Filter
from .free_time import FreeTime
from .free_time_response import FreeTimeResponse
from .free_time_rule import FreeTimeRule
from .geo_coordinate import GeoCoordinate
from .geometry import Geometry
from .health_check_body import HealthCheckBody
from .health_check_response import HealthCheckResponse
from .infer_candidate import InferCandidate
from .infer_probe import InferProbe
from .infer_response import InferResponse
from .iot_details import IotDetails
from .journeys_response import JourneysResponse
from .location import Location
from .message_response import MessageResponse
from .metrics_response import MetricsResponse
from .milestone import Milestone
from .party import Party
from .patch_connector_body import PatchConnectorBody
from .payload import Payload
from .port_eta import PortETA
from .position import Position
from .prediction import Prediction
from .push_events_body_type_0 import PushEventsBodyType0
from .push_events_body_type_1_item import PushEventsBodyType1Item
from .rail_transport import RailTransport
from .readiness import Readiness
from .readiness_hold import ReadinessHold
from .reefer_details import ReeferDetails
from .reefer_parameters import ReeferParameters
from .references import References
from .result import Result
from .retry_delivery_response import RetryDeliveryResponse
from .route import Route
from .route_part import RoutePart
from .route_port import RoutePort
from .route_properties import RouteProperties
from .seal import Seal
from .service_code_or_reference import ServiceCodeOrReference
from .shipment_details import ShipmentDetails
from .shipment_reference import ShipmentReference
from .shipment_reference_replacement import ShipmentReferenceReplacement
from .store_carrier_credentials_body import StoreCarrierCredentialsBody
from .store_carrier_credentials_body_additional_property import (
    StoreCarrierCredentialsBodyAdditionalProperty,
)
from .subscribe_response import SubscribeResponse
from .subscription_alerts import SubscriptionAlerts
from .subscription_list import SubscriptionList
from .subscription_record import SubscriptionRecord
from .temperature_probe_measurement import TemperatureProbeMeasurement
from .test_delivery_response import TestDeliveryResponse
from .transport_call import TransportCall
from .transport_details import TransportDetails
from .truck_transport import TruckTransport
from .usage_plan import UsagePlan
from .v3_error import V3Error
from .v3_events import V3Events
from .vehicle_details import VehicleDetails
from .vessel import Vessel
from .vessel_positions_body import VesselPositionsBody
from .vessel_positions_response import VesselPositionsResponse
from .vessel_positions_setting import VesselPositionsSetting
from .vessel_transport import VesselTransport
from .voyage_number_or_reference import VoyageNumberOrReference
from .webhook_config import WebhookConfig
from .webhook_config_auth_headers_type_0 import WebhookConfigAuthHeadersType0

__all__ = (
    "AccountAlertSettings",
    "AccountAlertSettingsResponse",
    "AccountResponse",
    "ActivateWebhookBody",
    "AddedResponse",
    "Address",
    "Alert",
    "AlertSettings",
    "AlertSettingsResponse",
    "AlertVessel",
    "AttentionContainer",
    "AttentionList",
    "AttentionSubscription",
    "Body",
    "BulkResult",
    "BulkSubscribeResponse",
    "CarrierCapacity",
    "CarrierMetrics",
    "ConfigureWebhookBody",
    "ConfigureWebhookBodyAuthHeadersType0",
    "ConnectorAuthBody",
    "ConnectorBody",
    "ConnectorFetchBody",
    "ConnectorFetchResponse",
    "ConnectorResponse",
    "ConnectorView",
    "ConnectorsResponse",
    "CreateSubscriptionBody",
    "CredentialsResponse",
    "CredentialsResponseCarrierCredentialsType0",
    "CredentialsResponseCarrierCredentialsType0AdditionalProperty",
    "DataQuality",
    "DataQualityRepairsType0",
    "DeleteCredentialsBody",
    "DeleteResponse",
    "DeliveryList",
    "DeliveryRecord",
    "DocumentReference",
    "DocumentReferenceReplacement",
    "EquipmentDetails",
    "EstimatedCost",
    "Event",
    "EventClassification",
    "EventRouting",
    "Facility",
    "FeedPage",
    "FeedVessel",
    "FeedVesselPosition",
    "FeedbackElement",
    "Filter",
    "FreeTime",
    "FreeTimeResponse",
    "FreeTimeRule",
    "GeoCoordinate",
    "Geometry",
    "HealthCheckBody",
    "HealthCheckResponse",
    "InferCandidate",
    "InferProbe",
    "InferResponse",
    "IotDetails",
    "JourneysResponse",
    "Location",
    "MessageResponse",
    "MetricsResponse",
    "Milestone",
    "Party",
    "PatchConnectorBody",
    "Payload",
    "PortETA",
    "Position",
    "Prediction",
    "PushEventsBodyType0",
    "PushEventsBodyType1Item",
    "RailTransport",
    "Readiness",
    "ReadinessHold",
    "ReeferDetails",
    "ReeferParameters",
    "References",
    "Result",
    "RetryDeliveryResponse",
    "Route",
    "RoutePart",
    "RoutePort",
    "RouteProperties",
    "Seal",
    "ServiceCodeOrReference",
    "ShipmentDetails",
    "ShipmentReference",
    "ShipmentReferenceReplacement",
    "StoreCarrierCredentialsBody",
    "StoreCarrierCredentialsBodyAdditionalProperty",
    "SubscribeResponse",
    "SubscriptionAlerts",
    "SubscriptionList",
    "SubscriptionRecord",
    "TemperatureProbeMeasurement",
    "TestDeliveryResponse",
    "TransportCall",
    "TransportDetails",
    "TruckTransport",
    "UsagePlan",
    "V3Error",
    "V3Events",
    "VehicleDetails",
    "Vessel",
    "VesselPositionsBody",
    "VesselPositionsResponse",
    "VesselPositionsSetting",
    "VesselTransport",
    "VoyageNumberOrReference",
    "WebhookConfig",
    "WebhookConfigAuthHeadersType0",
)
